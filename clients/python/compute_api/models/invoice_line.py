from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.invoice_line_kind import InvoiceLineKind

T = TypeVar("T", bound="InvoiceLine")


@_attrs_define
class InvoiceLine:
    """
    Attributes:
        kind (InvoiceLineKind): `usage`: one job's attempt; `credit`: the prepaid credit this invoice's usage drew, a
            negative amount with no job (the invoice's last line)
        job_id (None | str): null on the credit line
        attempt (int | None): null on the credit line
        late (bool): Usage of an earlier period recorded after that period’s invoice opened
        cpu_seconds (float):
        gpu_seconds (float):
        gb_seconds (float):
        amount_usd (float): To the cent: the running total rounded, less the running total before this line rounded
    """

    kind: InvoiceLineKind
    job_id: None | str
    attempt: int | None
    late: bool
    cpu_seconds: float
    gpu_seconds: float
    gb_seconds: float
    amount_usd: float
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        kind = self.kind.value

        job_id: None | str
        job_id = self.job_id

        attempt: int | None
        attempt = self.attempt

        late = self.late

        cpu_seconds = self.cpu_seconds

        gpu_seconds = self.gpu_seconds

        gb_seconds = self.gb_seconds

        amount_usd = self.amount_usd

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "kind": kind,
                "jobId": job_id,
                "attempt": attempt,
                "late": late,
                "cpuSeconds": cpu_seconds,
                "gpuSeconds": gpu_seconds,
                "gbSeconds": gb_seconds,
                "amountUsd": amount_usd,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        kind = InvoiceLineKind(d.pop("kind"))

        def _parse_job_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        job_id = _parse_job_id(d.pop("jobId"))

        def _parse_attempt(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        attempt = _parse_attempt(d.pop("attempt"))

        late = d.pop("late")

        cpu_seconds = d.pop("cpuSeconds")

        gpu_seconds = d.pop("gpuSeconds")

        gb_seconds = d.pop("gbSeconds")

        amount_usd = d.pop("amountUsd")

        invoice_line = cls(
            kind=kind,
            job_id=job_id,
            attempt=attempt,
            late=late,
            cpu_seconds=cpu_seconds,
            gpu_seconds=gpu_seconds,
            gb_seconds=gb_seconds,
            amount_usd=amount_usd,
        )

        invoice_line.additional_properties = d
        return invoice_line

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
