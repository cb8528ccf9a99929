from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.post_api_compute_api_keys_revoke_response_200_payload_kind import (
    PostApiComputeApiKeysRevokeResponse200PayloadKind,
)

if TYPE_CHECKING:
    from ..models.post_api_compute_api_keys_revoke_response_200_payload_quotas_type_0 import (
        PostApiComputeApiKeysRevokeResponse200PayloadQuotasType0,
    )


T = TypeVar("T", bound="PostApiComputeApiKeysRevokeResponse200Payload")


@_attrs_define
class PostApiComputeApiKeysRevokeResponse200Payload:
    """
    Attributes:
        id (str):
        prefix (str):
        name (str):
        kind (PostApiComputeApiKeysRevokeResponse200PayloadKind):
        quotas (None | PostApiComputeApiKeysRevokeResponse200PayloadQuotasType0): Bound the jobs submitted with the key
            and the jobs handed to nodes registered with it, all of those nodes together. Past maxJobsPerHour or
            maxConcurrentJobs a submit is 429 quota.exceeded with Retry-After; a type not allowed is 403 auth.forbidden.
        created_at (str):
        last_used_at (None | str):
        revoked_at (None | str):
    """

    id: str
    prefix: str
    name: str
    kind: PostApiComputeApiKeysRevokeResponse200PayloadKind
    quotas: None | PostApiComputeApiKeysRevokeResponse200PayloadQuotasType0
    created_at: str
    last_used_at: None | str
    revoked_at: None | str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.post_api_compute_api_keys_revoke_response_200_payload_quotas_type_0 import (
            PostApiComputeApiKeysRevokeResponse200PayloadQuotasType0,
        )

        id = self.id

        prefix = self.prefix

        name = self.name

        kind = self.kind.value

        quotas: dict[str, Any] | None
        if isinstance(
            self.quotas, PostApiComputeApiKeysRevokeResponse200PayloadQuotasType0
        ):
            quotas = self.quotas.to_dict()
        else:
            quotas = self.quotas

        created_at = self.created_at

        last_used_at: None | str
        last_used_at = self.last_used_at

        revoked_at: None | str
        revoked_at = self.revoked_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "prefix": prefix,
                "name": name,
                "kind": kind,
                "quotas": quotas,
                "createdAt": created_at,
                "lastUsedAt": last_used_at,
                "revokedAt": revoked_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.post_api_compute_api_keys_revoke_response_200_payload_quotas_type_0 import (
            PostApiComputeApiKeysRevokeResponse200PayloadQuotasType0,
        )

        d = dict(src_dict)
        id = d.pop("id")

        prefix = d.pop("prefix")

        name = d.pop("name")

        kind = PostApiComputeApiKeysRevokeResponse200PayloadKind(d.pop("kind"))

        def _parse_quotas(
            data: object,
        ) -> None | PostApiComputeApiKeysRevokeResponse200PayloadQuotasType0:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                quotas_type_0 = (
                    PostApiComputeApiKeysRevokeResponse200PayloadQuotasType0.from_dict(
                        data
                    )
                )

                return quotas_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(
                None | PostApiComputeApiKeysRevokeResponse200PayloadQuotasType0, data
            )

        quotas = _parse_quotas(d.pop("quotas"))

        created_at = d.pop("createdAt")

        def _parse_last_used_at(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        last_used_at = _parse_last_used_at(d.pop("lastUsedAt"))

        def _parse_revoked_at(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        revoked_at = _parse_revoked_at(d.pop("revokedAt"))

        post_api_compute_api_keys_revoke_response_200_payload = cls(
            id=id,
            prefix=prefix,
            name=name,
            kind=kind,
            quotas=quotas,
            created_at=created_at,
            last_used_at=last_used_at,
            revoked_at=revoked_at,
        )

        post_api_compute_api_keys_revoke_response_200_payload.additional_properties = d
        return post_api_compute_api_keys_revoke_response_200_payload

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
