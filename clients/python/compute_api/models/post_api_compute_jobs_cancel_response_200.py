from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.post_api_compute_jobs_cancel_response_200_status import (
    PostApiComputeJobsCancelResponse200Status,
)

if TYPE_CHECKING:
    from ..models.job_a import JobA


T = TypeVar("T", bound="PostApiComputeJobsCancelResponse200")


@_attrs_define
class PostApiComputeJobsCancelResponse200:
    """
    Attributes:
        status (PostApiComputeJobsCancelResponse200Status):
        payload (JobA):
    """

    status: PostApiComputeJobsCancelResponse200Status
    payload: JobA
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
        from ..models.job_a import JobA

        d = dict(src_dict)
        status = PostApiComputeJobsCancelResponse200Status(d.pop("status"))

        payload = JobA.from_dict(d.pop("payload"))

        post_api_compute_jobs_cancel_response_200 = cls(
            status=status,
            payload=payload,
        )

        post_api_compute_jobs_cancel_response_200.additional_properties = d
        return post_api_compute_jobs_cancel_response_200

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
