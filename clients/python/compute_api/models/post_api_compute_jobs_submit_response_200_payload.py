from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.post_api_compute_jobs_submit_response_200_payload_state import (
    PostApiComputeJobsSubmitResponse200PayloadState,
)

T = TypeVar("T", bound="PostApiComputeJobsSubmitResponse200Payload")


@_attrs_define
class PostApiComputeJobsSubmitResponse200Payload:
    """
    Attributes:
        job_id (str):
        state (PostApiComputeJobsSubmitResponse200PayloadState):
        created_at (str):
    """

    job_id: str
    state: PostApiComputeJobsSubmitResponse200PayloadState
    created_at: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        job_id = self.job_id

        state = self.state.value

        created_at = self.created_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "job_id": job_id,
                "state": state,
                "createdAt": created_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        job_id = d.pop("job_id")

        state = PostApiComputeJobsSubmitResponse200PayloadState(d.pop("state"))

        created_at = d.pop("createdAt")

        post_api_compute_jobs_submit_response_200_payload = cls(
            job_id=job_id,
            state=state,
            created_at=created_at,
        )

        post_api_compute_jobs_submit_response_200_payload.additional_properties = d
        return post_api_compute_jobs_submit_response_200_payload

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
