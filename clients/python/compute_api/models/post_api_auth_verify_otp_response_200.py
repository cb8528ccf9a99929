from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.post_api_auth_verify_otp_response_200_status import (
    PostApiAuthVerifyOtpResponse200Status,
)

if TYPE_CHECKING:
    from ..models.post_api_auth_verify_otp_response_200_payload import (
        PostApiAuthVerifyOtpResponse200Payload,
    )


T = TypeVar("T", bound="PostApiAuthVerifyOtpResponse200")


@_attrs_define
class PostApiAuthVerifyOtpResponse200:
    """
    Attributes:
        status (PostApiAuthVerifyOtpResponse200Status):
        payload (PostApiAuthVerifyOtpResponse200Payload):
    """

    status: PostApiAuthVerifyOtpResponse200Status
    payload: PostApiAuthVerifyOtpResponse200Payload
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        status = self.status.value

        payload = self.payload.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "status": status,
                "payload": payload,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.post_api_auth_verify_otp_response_200_payload import (
            PostApiAuthVerifyOtpResponse200Payload,
        )

        d = dict(src_dict)
        status = PostApiAuthVerifyOtpResponse200Status(d.pop("status"))

        payload = PostApiAuthVerifyOtpResponse200Payload.from_dict(d.pop("payload"))

        post_api_auth_verify_otp_response_200 = cls(
            status=status,
            payload=payload,
        )

        post_api_auth_verify_otp_response_200.additional_properties = d
        return post_api_auth_verify_otp_response_200

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
