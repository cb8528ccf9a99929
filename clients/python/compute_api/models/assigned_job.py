from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.assigned_job_artifacts import AssignedJobArtifacts
    from ..models.assigned_job_env import AssignedJobEnv
    from ..models.assigned_job_labels import AssignedJobLabels
    from ..models.assigned_job_resources import AssignedJobResources


T = TypeVar("T", bound="AssignedJob")


@_attrs_define
class AssignedJob:
    """
    Attributes:
        job_id (str):
        lease_id (str):
        type_ (str):
        command (str):
        env (AssignedJobEnv):
        timeout_seconds (int):
        attempt (int):
        labels (AssignedJobLabels):
        artifacts (AssignedJobArtifacts):
        resources (AssignedJobResources): What the job pays for, defaults filled in: an agent that holds jobs to their
            resources gives it no more
        artifact_upload_url (str): Signed PUT URL template for this job and lease; replace {id} with an artifact id, add
            &name=
        traceparent (str | Unset): The hand-out’s place in the job’s trace (W3C Trace Context), when the service traces:
            the agent runs the attempt as its child, gives the job’s process TRACEPARENT and sends its result with a
            `traceparent` header
    """

    job_id: str
    lease_id: str
    type_: str
    command: str
    env: AssignedJobEnv
    timeout_seconds: int
    attempt: int
    labels: AssignedJobLabels
    artifacts: AssignedJobArtifacts
    resources: AssignedJobResources
    artifact_upload_url: str
    traceparent: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        job_id = self.job_id

        lease_id = self.lease_id

        type_ = self.type_

        command = self.command

        env = self.env.to_dict()

        timeout_seconds = self.timeout_seconds

        attempt = self.attempt

        labels = self.labels.to_dict()

        artifacts = self.artifacts.to_dict()

        resources = self.resources.to_dict()

        artifact_upload_url = self.artifact_upload_url

        traceparent = self.traceparent

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "job_id": job_id,
                "leaseId": lease_id,
                "type": type_,
                "command": command,
                "env": env,
                "timeoutSeconds": timeout_seconds,
                "attempt": attempt,
                "labels": labels,
                "artifacts": artifacts,
                "resources": resources,
                "artifactUploadUrl": artifact_upload_url,
            }
        )
        if traceparent is not UNSET:
            field_dict["traceparent"] = traceparent

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.assigned_job_artifacts import AssignedJobArtifacts
        from ..models.assigned_job_env import AssignedJobEnv
        from ..models.assigned_job_labels import AssignedJobLabels
        from ..models.assigned_job_resources import AssignedJobResources

        d = dict(src_dict)
        job_id = d.pop("job_id")

        lease_id = d.pop("leaseId")

        type_ = d.pop("type")

        command = d.pop("command")

        env = AssignedJobEnv.from_dict(d.pop("env"))

        timeout_seconds = d.pop("timeoutSeconds")

        attempt = d.pop("attempt")

        labels = AssignedJobLabels.from_dict(d.pop("labels"))

        artifacts = AssignedJobArtifacts.from_dict(d.pop("artifacts"))

        resources = AssignedJobResources.from_dict(d.pop("resources"))

        artifact_upload_url = d.pop("artifactUploadUrl")

        traceparent = d.pop("traceparent", UNSET)

        assigned_job = cls(
            job_id=job_id,
            lease_id=lease_id,
            type_=type_,
            command=command,
            env=env,
            timeout_seconds=timeout_seconds,
            attempt=attempt,
            labels=labels,
            artifacts=artifacts,
            resources=resources,
            artifact_upload_url=artifact_upload_url,
            traceparent=traceparent,
        )

        assigned_job.additional_properties = d
        return assigned_job

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
