from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.node_a_state import NodeAState

if TYPE_CHECKING:
    from ..models.node_a_capacity_type_0 import NodeACapacityType0
    from ..models.node_a_labels import NodeALabels


T = TypeVar("T", bound="NodeA")


@_attrs_define
class NodeA:
    """
    Attributes:
        node_id (str):
        name (str):
        labels (NodeALabels):
        state (NodeAState):
        drain (bool):
        drain_deadline_at (None | str):
        last_heartbeat_at (str):
        running_jobs (list[str]):
        version (None | str):
        region (None | str): The managed-pool region a managed-pool node serves; null for a workspace’s own node
        capacity (NodeACapacityType0 | None): What it registered it has for its jobs; null when it gave none (it is then
            handed jobs whatever they ask for)
        created_at (str):
    """

    node_id: str
    name: str
    labels: NodeALabels
    state: NodeAState
    drain: bool
    drain_deadline_at: None | str
    last_heartbeat_at: str
    running_jobs: list[str]
    version: None | str
    region: None | str
    capacity: NodeACapacityType0 | None
    created_at: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.node_a_capacity_type_0 import NodeACapacityType0

        node_id = self.node_id

        name = self.name

        labels = self.labels.to_dict()

        state = self.state.value

        drain = self.drain

        drain_deadline_at: None | str
        drain_deadline_at = self.drain_deadline_at

        last_heartbeat_at = self.last_heartbeat_at

        running_jobs = self.running_jobs

        version: None | str
        version = self.version

        region: None | str
        region = self.region

        capacity: dict[str, Any] | None
        if isinstance(self.capacity, NodeACapacityType0):
            capacity = self.capacity.to_dict()
        else:
            capacity = self.capacity

        created_at = self.created_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "nodeId": node_id,
                "name": name,
                "labels": labels,
                "state": state,
                "drain": drain,
                "drainDeadlineAt": drain_deadline_at,
                "lastHeartbeatAt": last_heartbeat_at,
                "runningJobs": running_jobs,
                "version": version,
                "region": region,
                "capacity": capacity,
                "createdAt": created_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.node_a_capacity_type_0 import NodeACapacityType0
        from ..models.node_a_labels import NodeALabels

        d = dict(src_dict)
        node_id = d.pop("nodeId")

        name = d.pop("name")

        labels = NodeALabels.from_dict(d.pop("labels"))

        state = NodeAState(d.pop("state"))

        drain = d.pop("drain")

        def _parse_drain_deadline_at(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        drain_deadline_at = _parse_drain_deadline_at(d.pop("drainDeadlineAt"))

        last_heartbeat_at = d.pop("lastHeartbeatAt")

        running_jobs = cast(list[str], d.pop("runningJobs"))

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

        def _parse_capacity(data: object) -> NodeACapacityType0 | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                capacity_type_0 = NodeACapacityType0.from_dict(data)

                return capacity_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(NodeACapacityType0 | None, data)

        capacity = _parse_capacity(d.pop("capacity"))

        created_at = d.pop("createdAt")

        node_a = cls(
            node_id=node_id,
            name=name,
            labels=labels,
            state=state,
            drain=drain,
            drain_deadline_at=drain_deadline_at,
            last_heartbeat_at=last_heartbeat_at,
            running_jobs=running_jobs,
            version=version,
            region=region,
            capacity=capacity,
            created_at=created_at,
        )

        node_a.additional_properties = d
        return node_a

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
