from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="PutApiComputeArtifactsUploadJobIdIdResponse200Payload")


@_attrs_define
class PutApiComputeArtifactsUploadJobIdIdResponse200Payload:
    """
    Attributes:
        id (str):
        size (int):
        sha256 (str):
    """

    id: str
    size: int
    sha256: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        size = self.size

        sha256 = self.sha256

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "size": size,
                "sha256": sha256,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        id = d.pop("id")

        size = d.pop("size")

        sha256 = d.pop("sha256")

        put_api_compute_artifacts_upload_job_id_id_response_200_payload = cls(
            id=id,
            size=size,
            sha256=sha256,
        )

        put_api_compute_artifacts_upload_job_id_id_response_200_payload.additional_properties = d
        return put_api_compute_artifacts_upload_job_id_id_response_200_payload

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
