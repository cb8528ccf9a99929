from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="Attempt")


@_attrs_define
class Attempt:
    """
    Attributes:
        attempt (int): Its number, 1 for the first; the job’s `attempt` is its latest
        agent_id (str): The agent it was assigned to
        assigned_at (str):
        last_heartbeat_at (str): The last heartbeat of its agent while it ran (its assignment, until one came)
        ended_at (None | str): null while it runs
        end_reason (None | str): `result` (its agent reported), `timeout`, `cancelled`, `agent_lost`, `drain_deadline`,
            `deregistered` (its agent was removed), `undelivered` (the assignment never reached the agent), `reset` (its run
            was reset in Temporal; the job went on in a new attempt); null while it runs
        exit_code (int | None): As its agent reported it; null without a result
        runtime_ms (int | None): As its agent reported it; null without a result
    """

    attempt: int
    agent_id: str
    assigned_at: str
    last_heartbeat_at: str
    ended_at: None | str
    end_reason: None | str
    exit_code: int | None
    runtime_ms: int | None
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        attempt = self.attempt

        agent_id = self.agent_id

        assigned_at = self.assigned_at

        last_heartbeat_at = self.last_heartbeat_at

        ended_at: None | str
        ended_at = self.ended_at

        end_reason: None | str
        end_reason = self.end_reason

        exit_code: int | None
        exit_code = self.exit_code

        runtime_ms: int | None
        runtime_ms = self.runtime_ms

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "attempt": attempt,
                "agentId": agent_id,
                "assignedAt": assigned_at,
                "lastHeartbeatAt": last_heartbeat_at,
                "endedAt": ended_at,
                "endReason": end_reason,
                "exitCode": exit_code,
                "runtimeMs": runtime_ms,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        attempt = d.pop("attempt")

        agent_id = d.pop("agentId")

        assigned_at = d.pop("assignedAt")

        last_heartbeat_at = d.pop("lastHeartbeatAt")

        def _parse_ended_at(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        ended_at = _parse_ended_at(d.pop("endedAt"))

        def _parse_end_reason(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        end_reason = _parse_end_reason(d.pop("endReason"))

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

        attempt = cls(
            attempt=attempt,
            agent_id=agent_id,
            assigned_at=assigned_at,
            last_heartbeat_at=last_heartbeat_at,
            ended_at=ended_at,
            end_reason=end_reason,
            exit_code=exit_code,
            runtime_ms=runtime_ms,
        )

        attempt.additional_properties = d
        return attempt

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
