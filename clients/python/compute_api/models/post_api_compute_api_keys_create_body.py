from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

from ..models.post_api_compute_api_keys_create_body_kind import (
    PostApiComputeApiKeysCreateBodyKind,
)
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.post_api_compute_api_keys_create_body_quotas import (
        PostApiComputeApiKeysCreateBodyQuotas,
    )


T = TypeVar("T", bound="PostApiComputeApiKeysCreateBody")


@_attrs_define
class PostApiComputeApiKeysCreateBody:
    """
    Attributes:
        name (str):
        kind (PostApiComputeApiKeysCreateBodyKind | Unset):  Default: PostApiComputeApiKeysCreateBodyKind.USER.
        quotas (PostApiComputeApiKeysCreateBodyQuotas | Unset): Bound the jobs submitted with the key and the jobs
            handed to nodes registered with it, all of those nodes together. Past maxJobsPerHour or maxConcurrentJobs a
            submit is 429 quota.exceeded with Retry-After; a type not allowed is 403 auth.forbidden.
    """

    name: str
    kind: PostApiComputeApiKeysCreateBodyKind | Unset = (
        PostApiComputeApiKeysCreateBodyKind.USER
    )
    quotas: PostApiComputeApiKeysCreateBodyQuotas | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        name = self.name

        kind: str | Unset = UNSET
        if not isinstance(self.kind, Unset):
            kind = self.kind.value

        quotas: dict[str, Any] | Unset = UNSET
        if not isinstance(self.quotas, Unset):
            quotas = self.quotas.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "name": name,
            }
        )
        if kind is not UNSET:
            field_dict["kind"] = kind
        if quotas is not UNSET:
            field_dict["quotas"] = quotas

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.post_api_compute_api_keys_create_body_quotas import (
            PostApiComputeApiKeysCreateBodyQuotas,
        )

        d = dict(src_dict)
        name = d.pop("name")

        _kind = d.pop("kind", UNSET)
        kind: PostApiComputeApiKeysCreateBodyKind | Unset
        if isinstance(_kind, Unset):
            kind = UNSET
        else:
            kind = PostApiComputeApiKeysCreateBodyKind(_kind)

        _quotas = d.pop("quotas", UNSET)
        quotas: PostApiComputeApiKeysCreateBodyQuotas | Unset
        if isinstance(_quotas, Unset):
            quotas = UNSET
        else:
            quotas = PostApiComputeApiKeysCreateBodyQuotas.from_dict(_quotas)

        post_api_compute_api_keys_create_body = cls(
            name=name,
            kind=kind,
            quotas=quotas,
        )

        return post_api_compute_api_keys_create_body
