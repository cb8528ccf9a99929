from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.invoice_status import InvoiceStatus

if TYPE_CHECKING:
    from ..models.invoice_line import InvoiceLine


T = TypeVar("T", bound="Invoice")


@_attrs_define
class Invoice:
    """The managed usage of one billing period. A draft shows what it would hold if it opened now.

    Attributes:
        id (str):
        period_start (str):
        period_end (str):
        status (InvoiceStatus): `draft` while late usage of the period may still land (about a meter tick), then `open`,
            never changed again; `paid` when Stripe says so
        total_usd (float): The lines’ sum, exactly: the exact usage total less the credit it drew, rounded to the cent
        credit_usd (float): The prepaid credit the usage drew (shown as the credit line); usage is charged once, from
            credit or here
        rounding_usd (float): totalUsd − the exact total (to 12 decimals)
        lines (list[InvoiceLine]): One per job, attempt and lateness, in job and attempt order, then the credit line
            when credit was drawn
    """

    id: str
    period_start: str
    period_end: str
    status: InvoiceStatus
    total_usd: float
    credit_usd: float
    rounding_usd: float
    lines: list[InvoiceLine]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        period_start = self.period_start

        period_end = self.period_end

        status = self.status.value

        total_usd = self.total_usd

        credit_usd = self.credit_usd

        rounding_usd = self.rounding_usd

        lines = []
        for lines_item_data in self.lines:
            lines_item = lines_item_data.to_dict()
            lines.append(lines_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "periodStart": period_start,
                "periodEnd": period_end,
                "status": status,
                "totalUsd": total_usd,
                "creditUsd": credit_usd,
                "roundingUsd": rounding_usd,
                "lines": lines,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.invoice_line import InvoiceLine

        d = dict(src_dict)
        id = d.pop("id")

        period_start = d.pop("periodStart")

        period_end = d.pop("periodEnd")

        status = InvoiceStatus(d.pop("status"))

        total_usd = d.pop("totalUsd")

        credit_usd = d.pop("creditUsd")

        rounding_usd = d.pop("roundingUsd")

        lines = []
        _lines = d.pop("lines")
        for lines_item_data in _lines:
            lines_item = InvoiceLine.from_dict(lines_item_data)

            lines.append(lines_item)

        invoice = cls(
            id=id,
            period_start=period_start,
            period_end=period_end,
            status=status,
            total_usd=total_usd,
            credit_usd=credit_usd,
            rounding_usd=rounding_usd,
            lines=lines,
        )

        invoice.additional_properties = d
        return invoice

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
