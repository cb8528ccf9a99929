from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="PostApiComputeApiKeysCreateResponse200PayloadQuotasType0")


@_attrs_define
class PostApiComputeApiKeysCreateResponse200PayloadQuotasType0:
    """Bound the jobs submitted with the key and the jobs handed to nodes registered with it, all of those nodes together.
    Past maxJobsPerHour or maxConcurrentJobs a submit is 429 quota.exceeded with Retry-After; a type not allowed is 403
    auth.forbidden.

        Attributes:
            max_jobs_per_hour (int | Unset):
            max_concurrent_jobs (int | Unset):
            allowed_job_types (list[str] | Unset):
    """

    max_jobs_per_hour: int | Unset = UNSET
    max_concurrent_jobs: int | Unset = UNSET
    allowed_job_types: list[str] | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        max_jobs_per_hour = self.max_jobs_per_hour

        max_concurrent_jobs = self.max_concurrent_jobs

        allowed_job_types: list[str] | Unset = UNSET
        if not isinstance(self.allowed_job_types, Unset):
            allowed_job_types = self.allowed_job_types

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if max_jobs_per_hour is not UNSET:
            field_dict["maxJobsPerHour"] = max_jobs_per_hour
        if max_concurrent_jobs is not UNSET:
            field_dict["maxConcurrentJobs"] = max_concurrent_jobs
        if allowed_job_types is not UNSET:
            field_dict["allowedJobTypes"] = allowed_job_types

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        max_jobs_per_hour = d.pop("maxJobsPerHour", UNSET)

        max_concurrent_jobs = d.pop("maxConcurrentJobs", UNSET)

        allowed_job_types = cast(list[str], d.pop("allowedJobTypes", UNSET))

        post_api_compute_api_keys_create_response_200_payload_quotas_type_0 = cls(
            max_jobs_per_hour=max_jobs_per_hour,
            max_concurrent_jobs=max_concurrent_jobs,
            allowed_job_types=allowed_job_types,
        )

        return post_api_compute_api_keys_create_response_200_payload_quotas_type_0
