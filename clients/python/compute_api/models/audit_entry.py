from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.audit_entry_outcome import AuditEntryOutcome

if TYPE_CHECKING:
    from ..models.audit_entry_actor import AuditEntryActor
    from ..models.audit_entry_details import AuditEntryDetails
    from ..models.audit_entry_target import AuditEntryTarget


T = TypeVar("T", bound="AuditEntry")


@_attrs_define
class AuditEntry:
    """
    Attributes:
        id (str):
        at (str):
        actor (AuditEntryActor):
        action (str): `noun.verb`: the actions CONTRACT §5 lists, and `job.reset` (a job's run reset in Temporal; actor
            system/temporal, details.reason as Temporal records it) and `codec.decode` (payloads decoded for the Temporal
            UI)
        target (AuditEntryTarget):
        workspace_id (str):
        outcome (AuditEntryOutcome):
        ip (None | str):
        user_agent (None | str):
        details (AuditEntryDetails):
    """

    id: str
    at: str
    actor: AuditEntryActor
    action: str
    target: AuditEntryTarget
    workspace_id: str
    outcome: AuditEntryOutcome
    ip: None | str
    user_agent: None | str
    details: AuditEntryDetails
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        at = self.at

        actor = self.actor.to_dict()

        action = self.action

        target = self.target.to_dict()

        workspace_id = self.workspace_id

        outcome = self.outcome.value

        ip: None | str
        ip = self.ip

        user_agent: None | str
        user_agent = self.user_agent

        details = self.details.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "at": at,
                "actor": actor,
                "action": action,
                "target": target,
                "workspaceId": workspace_id,
                "outcome": outcome,
                "ip": ip,
                "userAgent": user_agent,
                "details": details,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.audit_entry_actor import AuditEntryActor
        from ..models.audit_entry_details import AuditEntryDetails
        from ..models.audit_entry_target import AuditEntryTarget

        d = dict(src_dict)
        id = d.pop("id")

        at = d.pop("at")

        actor = AuditEntryActor.from_dict(d.pop("actor"))

        action = d.pop("action")

        target = AuditEntryTarget.from_dict(d.pop("target"))

        workspace_id = d.pop("workspaceId")

        outcome = AuditEntryOutcome(d.pop("outcome"))

        def _parse_ip(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        ip = _parse_ip(d.pop("ip"))

        def _parse_user_agent(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        user_agent = _parse_user_agent(d.pop("userAgent"))

        details = AuditEntryDetails.from_dict(d.pop("details"))

        audit_entry = cls(
            id=id,
            at=at,
            actor=actor,
            action=action,
            target=target,
            workspace_id=workspace_id,
            outcome=outcome,
            ip=ip,
            user_agent=user_agent,
            details=details,
        )

        audit_entry.additional_properties = d
        return audit_entry

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
