from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="PostApiComputeJobsArtifactsPresignUploadBody")


@_attrs_define
class PostApiComputeJobsArtifactsPresignUploadBody:
    """
    Attributes:
        job_id (str):
        ttl_seconds (int | Unset): Seconds the URL stays valid: 1..86400 (24 h), default ARTIFACT_URL_TTL_SECONDS (3600)
    """

    job_id: str
    ttl_seconds: int | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        job_id = self.job_id

        ttl_seconds = self.ttl_seconds

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "job_id": job_id,
            }
        )
        if ttl_seconds is not UNSET:
            field_dict["ttlSeconds"] = ttl_seconds

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        job_id = d.pop("job_id")

        ttl_seconds = d.pop("ttlSeconds", UNSET)

        post_api_compute_jobs_artifacts_presign_upload_body = cls(
            job_id=job_id,
            ttl_seconds=ttl_seconds,
        )

        return post_api_compute_jobs_artifacts_presign_upload_body
