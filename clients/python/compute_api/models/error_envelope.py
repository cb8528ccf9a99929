from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.error_envelope_status import ErrorEnvelopeStatus
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.error_envelope_details import ErrorEnvelopeDetails


T = TypeVar("T", bound="ErrorEnvelope")


@_attrs_define
class ErrorEnvelope:
    """
    Attributes:
        status (ErrorEnvelopeStatus):
        code (str):
        message (str):
        details (ErrorEnvelopeDetails | Unset):
        request_id (str | Unset): The X-Request-Id of this request, as the service logged it
    """

    status: ErrorEnvelopeStatus
    code: str
    message: str
    details: ErrorEnvelopeDetails | Unset = UNSET
    request_id: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        status = self.status.value

        code = self.code

        message = self.message

        details: dict[str, Any] | Unset = UNSET
        if not isinstance(self.details, Unset):
            details = self.details.to_dict()

        request_id = self.request_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "status": status,
                "code": code,
                "message": message,
            }
        )
        if details is not UNSET:
            field_dict["details"] = details
        if request_id is not UNSET:
            field_dict["requestId"] = request_id

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.error_envelope_details import ErrorEnvelopeDetails

        d = dict(src_dict)
        status = ErrorEnvelopeStatus(d.pop("status"))

        code = d.pop("code")

        message = d.pop("message")

        _details = d.pop("details", UNSET)
        details: ErrorEnvelopeDetails | Unset
        if isinstance(_details, Unset):
            details = UNSET
        else:
            details = ErrorEnvelopeDetails.from_dict(_details)

        request_id = d.pop("requestId", UNSET)

        error_envelope = cls(
            status=status,
            code=code,
            message=message,
            details=details,
            request_id=request_id,
        )

        error_envelope.additional_properties = d
        return error_envelope

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
