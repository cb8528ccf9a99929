from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="PostApiComputeJobsRetrieveBody")


@_attrs_define
class PostApiComputeJobsRetrieveBody:
    """
    Attributes:
        job_id (str):
    """

    job_id: str

    def to_dict(self) -> dict[str, Any]:
        job_id = self.job_id

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "job_id": job_id,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        job_id = d.pop("job_id")

        post_api_compute_jobs_retrieve_body = cls(
            job_id=job_id,
        )

        return post_api_compute_jobs_retrieve_body
