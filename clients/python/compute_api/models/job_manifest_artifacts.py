from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

T = TypeVar("T", bound="JobManifestArtifacts")


@_attrs_define
class JobManifestArtifacts:
    """
    Attributes:
        paths (list[str]):
    """

    paths: list[str]

    def to_dict(self) -> dict[str, Any]:
        paths = self.paths

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "paths": paths,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        paths = cast(list[str], d.pop("paths"))

        job_manifest_artifacts = cls(
            paths=paths,
        )

        return job_manifest_artifacts
