from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.workspace_plan import WorkspacePlan
from ..models.workspace_role import WorkspaceRole

T = TypeVar("T", bound="Workspace")


@_attrs_define
class Workspace:
    """
    Attributes:
        id (str):
        name (str):
        default_region (str):
        plan (WorkspacePlan):
        role (WorkspaceRole):
        created_at (str):
    """

    id: str
    name: str
    default_region: str
    plan: WorkspacePlan
    role: WorkspaceRole
    created_at: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        name = self.name

        default_region = self.default_region

        plan = self.plan.value

        role = self.role.value

        created_at = self.created_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "name": name,
                "defaultRegion": default_region,
                "plan": plan,
                "role": role,
                "createdAt": created_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        id = d.pop("id")

        name = d.pop("name")

        default_region = d.pop("defaultRegion")

        plan = WorkspacePlan(d.pop("plan"))

        role = WorkspaceRole(d.pop("role"))

        created_at = d.pop("createdAt")

        workspace = cls(
            id=id,
            name=name,
            default_region=default_region,
            plan=plan,
            role=role,
            created_at=created_at,
        )

        workspace.additional_properties = d
        return workspace

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
