from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="PostV0WebhooksIdrotateSecretResponse200")


@_attrs_define
class PostV0WebhooksIdrotateSecretResponse200:
    """
    Attributes:
        id (str):
        secret (str): `whsec_<base64>`: verify `webhook-signature` with it (Standard Webhooks). Shown only here
        previous_secret_expires_at (str):
    """

    id: str
    secret: str
    previous_secret_expires_at: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        secret = self.secret

        previous_secret_expires_at = self.previous_secret_expires_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "secret": secret,
                "previousSecretExpiresAt": previous_secret_expires_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        id = d.pop("id")

        secret = d.pop("secret")

        previous_secret_expires_at = d.pop("previousSecretExpiresAt")

        post_v0_webhooks_idrotate_secret_response_200 = cls(
            id=id,
            secret=secret,
            previous_secret_expires_at=previous_secret_expires_at,
        )

        post_v0_webhooks_idrotate_secret_response_200.additional_properties = d
        return post_v0_webhooks_idrotate_secret_response_200

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
