from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

from ..models.job_manifest_pool import JobManifestPool
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.job_manifest_artifacts import JobManifestArtifacts
    from ..models.job_manifest_env import JobManifestEnv
    from ..models.job_manifest_resources import JobManifestResources
    from ..models.job_manifest_retry import JobManifestRetry
    from ..models.job_manifest_selector import JobManifestSelector
    from ..models.labels import Labels


T = TypeVar("T", bound="JobManifest")


@_attrs_define
class JobManifest:
    """
    Attributes:
        type_ (str): Job type; only COMMAND is supported.
        command (str): Shell command, run with sh -c.
        timeout_seconds (int | Unset):  Default: 3600.
        labels (Labels | Unset): Up to 64 key/value pairs.
        env (JobManifestEnv | Unset):
        selector (JobManifestSelector | Unset): Agent labels that must all match.
        resources (JobManifestResources | Unset):
        pool (JobManifestPool | Unset): `self` (default): the workspace’s own agents run it. `managed`: the operator’s
            managed pool does, on an agent of `region`; the managed agents of a region take the jobs of every workspace in
            turn (the workspace served least recently first), then by priority and age within it; they never take `self`
            jobs, and the workspace’s own agents never take managed ones. Default: JobManifestPool.SELF.
        region (str | Unset): Managed jobs only: the region whose managed-pool agents may run it; default the
            workspace’s `defaultRegion`. With pool `self` it is 400 request.invalid.
        retry (JobManifestRetry | Unset):
        priority (int | Unset):  Default: 3.
        artifacts (JobManifestArtifacts | Unset):
    """

    type_: str
    command: str
    timeout_seconds: int | Unset = 3600
    labels: Labels | Unset = UNSET
    env: JobManifestEnv | Unset = UNSET
    selector: JobManifestSelector | Unset = UNSET
    resources: JobManifestResources | Unset = UNSET
    pool: JobManifestPool | Unset = JobManifestPool.SELF
    region: str | Unset = UNSET
    retry: JobManifestRetry | Unset = UNSET
    priority: int | Unset = 3
    artifacts: JobManifestArtifacts | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        type_ = self.type_

        command = self.command

        timeout_seconds = self.timeout_seconds

        labels: dict[str, Any] | Unset = UNSET
        if not isinstance(self.labels, Unset):
            labels = self.labels.to_dict()

        env: dict[str, Any] | Unset = UNSET
        if not isinstance(self.env, Unset):
            env = self.env.to_dict()

        selector: dict[str, Any] | Unset = UNSET
        if not isinstance(self.selector, Unset):
            selector = self.selector.to_dict()

        resources: dict[str, Any] | Unset = UNSET
        if not isinstance(self.resources, Unset):
            resources = self.resources.to_dict()

        pool: str | Unset = UNSET
        if not isinstance(self.pool, Unset):
            pool = self.pool.value

        region = self.region

        retry: dict[str, Any] | Unset = UNSET
        if not isinstance(self.retry, Unset):
            retry = self.retry.to_dict()

        priority = self.priority

        artifacts: dict[str, Any] | Unset = UNSET
        if not isinstance(self.artifacts, Unset):
            artifacts = self.artifacts.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "type": type_,
                "command": command,
            }
        )
        if timeout_seconds is not UNSET:
            field_dict["timeoutSeconds"] = timeout_seconds
        if labels is not UNSET:
            field_dict["labels"] = labels
        if env is not UNSET:
            field_dict["env"] = env
        if selector is not UNSET:
            field_dict["selector"] = selector
        if resources is not UNSET:
            field_dict["resources"] = resources
        if pool is not UNSET:
            field_dict["pool"] = pool
        if region is not UNSET:
            field_dict["region"] = region
        if retry is not UNSET:
            field_dict["retry"] = retry
        if priority is not UNSET:
            field_dict["priority"] = priority
        if artifacts is not UNSET:
            field_dict["artifacts"] = artifacts

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.job_manifest_artifacts import JobManifestArtifacts
        from ..models.job_manifest_env import JobManifestEnv
        from ..models.job_manifest_resources import JobManifestResources
        from ..models.job_manifest_retry import JobManifestRetry
        from ..models.job_manifest_selector import JobManifestSelector
        from ..models.labels import Labels

        d = dict(src_dict)
        type_ = d.pop("type")

        command = d.pop("command")

        timeout_seconds = d.pop("timeoutSeconds", UNSET)

        _labels = d.pop("labels", UNSET)
        labels: Labels | Unset
        if isinstance(_labels, Unset):
            labels = UNSET
        else:
            labels = Labels.from_dict(_labels)

        _env = d.pop("env", UNSET)
        env: JobManifestEnv | Unset
        if isinstance(_env, Unset):
            env = UNSET
        else:
            env = JobManifestEnv.from_dict(_env)

        _selector = d.pop("selector", UNSET)
        selector: JobManifestSelector | Unset
        if isinstance(_selector, Unset):
            selector = UNSET
        else:
            selector = JobManifestSelector.from_dict(_selector)

        _resources = d.pop("resources", UNSET)
        resources: JobManifestResources | Unset
        if isinstance(_resources, Unset):
            resources = UNSET
        else:
            resources = JobManifestResources.from_dict(_resources)

        _pool = d.pop("pool", UNSET)
        pool: JobManifestPool | Unset
        if isinstance(_pool, Unset):
            pool = UNSET
        else:
            pool = JobManifestPool(_pool)

        region = d.pop("region", UNSET)

        _retry = d.pop("retry", UNSET)
        retry: JobManifestRetry | Unset
        if isinstance(_retry, Unset):
            retry = UNSET
        else:
            retry = JobManifestRetry.from_dict(_retry)

        priority = d.pop("priority", UNSET)

        _artifacts = d.pop("artifacts", UNSET)
        artifacts: JobManifestArtifacts | Unset
        if isinstance(_artifacts, Unset):
            artifacts = UNSET
        else:
            artifacts = JobManifestArtifacts.from_dict(_artifacts)

        job_manifest = cls(
            type_=type_,
            command=command,
            timeout_seconds=timeout_seconds,
            labels=labels,
            env=env,
            selector=selector,
            resources=resources,
            pool=pool,
            region=region,
            retry=retry,
            priority=priority,
            artifacts=artifacts,
        )

        return job_manifest
