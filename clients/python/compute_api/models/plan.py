from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.plan_id import PlanId

if TYPE_CHECKING:
    from ..models.plan_prices import PlanPrices


T = TypeVar("T", bound="Plan")


@_attrs_define
class Plan:
    """
    Attributes:
        id (PlanId):
        name (str):
        prices (PlanPrices): USD per second of one CPU core, one GPU and one GB of memory (exact decimals, at most 15
            significant digits)
        requests_per_second (int | None): /v0 requests per second, sustained; null: none (hobby) or the workspace's own
            setting (enterprise)
        burst (int | None): /v0 requests in any one second; null as requestsPerSecond
        invoices (bool):
    """

    id: PlanId
    name: str
    prices: PlanPrices
    requests_per_second: int | None
    burst: int | None
    invoices: bool
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id.value

        name = self.name

        prices = self.prices.to_dict()

        requests_per_second: int | None
        requests_per_second = self.requests_per_second

        burst: int | None
        burst = self.burst

        invoices = self.invoices

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "name": name,
                "prices": prices,
                "requestsPerSecond": requests_per_second,
                "burst": burst,
                "invoices": invoices,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.plan_prices import PlanPrices

        d = dict(src_dict)
        id = PlanId(d.pop("id"))

        name = d.pop("name")

        prices = PlanPrices.from_dict(d.pop("prices"))

        def _parse_requests_per_second(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        requests_per_second = _parse_requests_per_second(d.pop("requestsPerSecond"))

        def _parse_burst(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        burst = _parse_burst(d.pop("burst"))

        invoices = d.pop("invoices")

        plan = cls(
            id=id,
            name=name,
            prices=prices,
            requests_per_second=requests_per_second,
            burst=burst,
            invoices=invoices,
        )

        plan.additional_properties = d
        return plan

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
