from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.job_a_failure_reason_type_0 import JobAFailureReasonType0
from ..models.job_a_pool import JobAPool
from ..models.job_a_state import JobAState
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.job_a_artifacts_item import JobAArtifactsItem
    from ..models.job_a_env import JobAEnv
    from ..models.job_a_labels import JobALabels
    from ..models.job_a_retry import JobARetry
    from ..models.job_a_selector import JobASelector


T = TypeVar("T", bound="JobA")


@_attrs_define
class JobA:
    """
    Attributes:
        type_ (str):
        command (str):
        labels (JobALabels):
        selector (JobASelector):
        timeout_seconds (int):
        priority (int):
        pool (JobAPool): `self`: the workspace’s own agents; `managed`: the operator’s managed pool, in `region`
        region (None | str): The managed pool’s region that runs the job (the manifest’s, else the workspace’s
            `defaultRegion` at submit); null for a `self` job
        retry (JobARetry):
        attempt (int):
        created_at (str):
        started_at (None | str):
        finished_at (None | str):
        exit_code (int | None):
        runtime_ms (int | None):
        failure_reason (JobAFailureReasonType0 | None | str): Why the job failed, or why the service cancelled it:
            `out_of_memory` when it passed its `resources.memoryMb` on an agent that holds jobs to it (the managed pool),
            `billing.hard_cap` when a lowered hard cap stopped it, `cancelled in Temporal` when its run was asked to cancel
            there (the Temporal UI, `temporal workflow cancel`, a batch), `terminated in Temporal: <reason>` when its run
            was terminated
        error (None | str):
        artifacts (list[JobAArtifactsItem]):
        trace_id (None | str): The job’s trace ID (W3C Trace Context, 32 hex digits) when the service traces
            (OTEL_EXPORTER_OTLP_ENDPOINT): its submit, each attempt’s hand-out and run, its results and its webhook
            deliveries are spans of this trace. Null otherwise
        env (JobAEnv): The names of the manifest’s env, each value `[redacted]`: the values are kept sealed and go only
            to the agent that runs an attempt
        job_id (str):
        state (JobAState):
        node_id (None | str):
        waiting_reason (str | Unset): Only on one job’s read (`jobs/retrieve`, `GET /v0/jobs/{id}`) of a queued managed
            job that no agent could take: why (none of its region online with the labels its selector asks for, or none with
            the room its `resources` ask for, and the most any offers). Absent otherwise
    """

    type_: str
    command: str
    labels: JobALabels
    selector: JobASelector
    timeout_seconds: int
    priority: int
    pool: JobAPool
    region: None | str
    retry: JobARetry
    attempt: int
    created_at: str
    started_at: None | str
    finished_at: None | str
    exit_code: int | None
    runtime_ms: int | None
    failure_reason: JobAFailureReasonType0 | None | str
    error: None | str
    artifacts: list[JobAArtifactsItem]
    trace_id: None | str
    env: JobAEnv
    job_id: str
    state: JobAState
    node_id: None | str
    waiting_reason: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        type_ = self.type_

        command = self.command

        labels = self.labels.to_dict()

        selector = self.selector.to_dict()

        timeout_seconds = self.timeout_seconds

        priority = self.priority

        pool = self.pool.value

        region: None | str
        region = self.region

        retry = self.retry.to_dict()

        attempt = self.attempt

        created_at = self.created_at

        started_at: None | str
        started_at = self.started_at

        finished_at: None | str
        finished_at = self.finished_at

        exit_code: int | None
        exit_code = self.exit_code

        runtime_ms: int | None
        runtime_ms = self.runtime_ms

        failure_reason: None | str
        if isinstance(self.failure_reason, JobAFailureReasonType0):
            failure_reason = self.failure_reason.value
        else:
            failure_reason = self.failure_reason

        error: None | str
        error = self.error

        artifacts = []
        for artifacts_item_data in self.artifacts:
            artifacts_item = artifacts_item_data.to_dict()
            artifacts.append(artifacts_item)

        trace_id: None | str
        trace_id = self.trace_id

        env = self.env.to_dict()

        job_id = self.job_id

        state = self.state.value

        node_id: None | str
        node_id = self.node_id

        waiting_reason = self.waiting_reason

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "type": type_,
                "command": command,
                "labels": labels,
                "selector": selector,
                "timeoutSeconds": timeout_seconds,
                "priority": priority,
                "pool": pool,
                "region": region,
                "retry": retry,
                "attempt": attempt,
                "createdAt": created_at,
                "startedAt": started_at,
                "finishedAt": finished_at,
                "exitCode": exit_code,
                "runtimeMs": runtime_ms,
                "failureReason": failure_reason,
                "error": error,
                "artifacts": artifacts,
                "traceId": trace_id,
                "env": env,
                "job_id": job_id,
                "state": state,
                "nodeId": node_id,
            }
        )
        if waiting_reason is not UNSET:
            field_dict["waitingReason"] = waiting_reason

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.job_a_artifacts_item import JobAArtifactsItem
        from ..models.job_a_env import JobAEnv
        from ..models.job_a_labels import JobALabels
        from ..models.job_a_retry import JobARetry
        from ..models.job_a_selector import JobASelector

        d = dict(src_dict)
        type_ = d.pop("type")

        command = d.pop("command")

        labels = JobALabels.from_dict(d.pop("labels"))

        selector = JobASelector.from_dict(d.pop("selector"))

        timeout_seconds = d.pop("timeoutSeconds")

        priority = d.pop("priority")

        pool = JobAPool(d.pop("pool"))

        def _parse_region(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        region = _parse_region(d.pop("region"))

        retry = JobARetry.from_dict(d.pop("retry"))

        attempt = d.pop("attempt")

        created_at = d.pop("createdAt")

        def _parse_started_at(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        started_at = _parse_started_at(d.pop("startedAt"))

        def _parse_finished_at(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        finished_at = _parse_finished_at(d.pop("finishedAt"))

        def _parse_exit_code(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        exit_code = _parse_exit_code(d.pop("exitCode"))

        def _parse_runtime_ms(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        runtime_ms = _parse_runtime_ms(d.pop("runtimeMs"))

        def _parse_failure_reason(data: object) -> JobAFailureReasonType0 | None | str:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                failure_reason_type_0 = JobAFailureReasonType0(data)

                return failure_reason_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(JobAFailureReasonType0 | None | str, data)

        failure_reason = _parse_failure_reason(d.pop("failureReason"))

        def _parse_error(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        error = _parse_error(d.pop("error"))

        artifacts = []
        _artifacts = d.pop("artifacts")
        for artifacts_item_data in _artifacts:
            artifacts_item = JobAArtifactsItem.from_dict(artifacts_item_data)

            artifacts.append(artifacts_item)

        def _parse_trace_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        trace_id = _parse_trace_id(d.pop("traceId"))

        env = JobAEnv.from_dict(d.pop("env"))

        job_id = d.pop("job_id")

        state = JobAState(d.pop("state"))

        def _parse_node_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        node_id = _parse_node_id(d.pop("nodeId"))

        waiting_reason = d.pop("waitingReason", UNSET)

        job_a = cls(
            type_=type_,
            command=command,
            labels=labels,
            selector=selector,
            timeout_seconds=timeout_seconds,
            priority=priority,
            pool=pool,
            region=region,
            retry=retry,
            attempt=attempt,
            created_at=created_at,
            started_at=started_at,
            finished_at=finished_at,
            exit_code=exit_code,
            runtime_ms=runtime_ms,
            failure_reason=failure_reason,
            error=error,
            artifacts=artifacts,
            trace_id=trace_id,
            env=env,
            job_id=job_id,
            state=state,
            node_id=node_id,
            waiting_reason=waiting_reason,
        )

        job_a.additional_properties = d
        return job_a

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
