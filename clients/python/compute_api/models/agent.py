from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.agent_state import AgentState

if TYPE_CHECKING:
    from ..models.agent_labels import AgentLabels


T = TypeVar("T", bound="Agent")


@_attrs_define
class Agent:
    """
    Attributes:
        id (str):
        name (str):
        labels (AgentLabels):
        state (AgentState):
        version (None | str):
        region (None | str): The managed-pool region the agent serves (an agent registered with an operator’s managed-
            pool key); null for the workspace’s own agents
        last_heartbeat_at (str):
        current_jobs (list[str]):
        drain_deadline_at (None | str):
        created_at (str):
    """

    id: str
    name: str
    labels: AgentLabels
    state: AgentState
    version: None | str
    region: None | str
    last_heartbeat_at: str
    current_jobs: list[str]
    drain_deadline_at: None | str
    created_at: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        name = self.name

        labels = self.labels.to_dict()

        state = self.state.value

        version: None | str
        version = self.version

        region: None | str
        region = self.region

        last_heartbeat_at = self.last_heartbeat_at

        current_jobs = self.current_jobs

        drain_deadline_at: None | str
        drain_deadline_at = self.drain_deadline_at

        created_at = self.created_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "name": name,
                "labels": labels,
                "state": state,
                "version": version,
                "region": region,
                "lastHeartbeatAt": last_heartbeat_at,
                "currentJobs": current_jobs,
                "drainDeadlineAt": drain_deadline_at,
                "createdAt": created_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.agent_labels import AgentLabels

        d = dict(src_dict)
        id = d.pop("id")

        name = d.pop("name")

        labels = AgentLabels.from_dict(d.pop("labels"))

        state = AgentState(d.pop("state"))

        def _parse_version(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        version = _parse_version(d.pop("version"))

        def _parse_region(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        region = _parse_region(d.pop("region"))

        last_heartbeat_at = d.pop("lastHeartbeatAt")

        current_jobs = cast(list[str], d.pop("currentJobs"))

        def _parse_drain_deadline_at(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        drain_deadline_at = _parse_drain_deadline_at(d.pop("drainDeadlineAt"))

        created_at = d.pop("createdAt")

        agent = cls(
            id=id,
            name=name,
            labels=labels,
            state=state,
            version=version,
            region=region,
            last_heartbeat_at=last_heartbeat_at,
            current_jobs=current_jobs,
            drain_deadline_at=drain_deadline_at,
            created_at=created_at,
        )

        agent.additional_properties = d
        return agent

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
