from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.post_api_compute_jobs_artifacts_presign_download_response_200_payload_method import (
    PostApiComputeJobsArtifactsPresignDownloadResponse200PayloadMethod,
)

T = TypeVar("T", bound="PostApiComputeJobsArtifactsPresignDownloadResponse200Payload")


@_attrs_define
class PostApiComputeJobsArtifactsPresignDownloadResponse200Payload:
    """
    Attributes:
        url (str):
        method (PostApiComputeJobsArtifactsPresignDownloadResponse200PayloadMethod):
        expires_at (str):
    """

    url: str
    method: PostApiComputeJobsArtifactsPresignDownloadResponse200PayloadMethod
    expires_at: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        url = self.url

        method = self.method.value

        expires_at = self.expires_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "url": url,
                "method": method,
                "expiresAt": expires_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        url = d.pop("url")

        method = PostApiComputeJobsArtifactsPresignDownloadResponse200PayloadMethod(
            d.pop("method")
        )

        expires_at = d.pop("expiresAt")

        post_api_compute_jobs_artifacts_presign_download_response_200_payload = cls(
            url=url,
            method=method,
            expires_at=expires_at,
        )

        post_api_compute_jobs_artifacts_presign_download_response_200_payload.additional_properties = d
        return post_api_compute_jobs_artifacts_presign_download_response_200_payload

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
