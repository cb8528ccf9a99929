from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.labels import Labels
    from ..models.post_api_compute_nodes_register_body_capabilities import (
        PostApiComputeNodesRegisterBodyCapabilities,
    )
    from ..models.post_api_compute_nodes_register_body_capacity import (
        PostApiComputeNodesRegisterBodyCapacity,
    )


T = TypeVar("T", bound="PostApiComputeNodesRegisterBody")


@_attrs_define
class PostApiComputeNodesRegisterBody:
    """
    Attributes:
        name (str):
        labels (Labels | Unset): Up to 64 key/value pairs.
        capabilities (PostApiComputeNodesRegisterBodyCapabilities | Unset):
        capacity (PostApiComputeNodesRegisterBodyCapacity | Unset): What this agent has for its jobs. A poll is then
            handed only jobs whose resources fit what its running jobs leave free; without it, jobs whatever they ask for
        version (str | Unset):
        region (str | Unset): Managed-pool agents only (registered with a managed-pool key): the region whose managed
            jobs it takes; default `local`. 400 with any other key
    """

    name: str
    labels: Labels | Unset = UNSET
    capabilities: PostApiComputeNodesRegisterBodyCapabilities | Unset = UNSET
    capacity: PostApiComputeNodesRegisterBodyCapacity | Unset = UNSET
    version: str | Unset = UNSET
    region: str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        name = self.name

        labels: dict[str, Any] | Unset = UNSET
        if not isinstance(self.labels, Unset):
            labels = self.labels.to_dict()

        capabilities: dict[str, Any] | Unset = UNSET
        if not isinstance(self.capabilities, Unset):
            capabilities = self.capabilities.to_dict()

        capacity: dict[str, Any] | Unset = UNSET
        if not isinstance(self.capacity, Unset):
            capacity = self.capacity.to_dict()

        version = self.version

        region = self.region

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "name": name,
            }
        )
        if labels is not UNSET:
            field_dict["labels"] = labels
        if capabilities is not UNSET:
            field_dict["capabilities"] = capabilities
        if capacity is not UNSET:
            field_dict["capacity"] = capacity
        if version is not UNSET:
            field_dict["version"] = version
        if region is not UNSET:
            field_dict["region"] = region

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.labels import Labels
        from ..models.post_api_compute_nodes_register_body_capabilities import (
            PostApiComputeNodesRegisterBodyCapabilities,
        )
        from ..models.post_api_compute_nodes_register_body_capacity import (
            PostApiComputeNodesRegisterBodyCapacity,
        )

        d = dict(src_dict)
        name = d.pop("name")

        _labels = d.pop("labels", UNSET)
        labels: Labels | Unset
        if isinstance(_labels, Unset):
            labels = UNSET
        else:
            labels = Labels.from_dict(_labels)

        _capabilities = d.pop("capabilities", UNSET)
        capabilities: PostApiComputeNodesRegisterBodyCapabilities | Unset
        if isinstance(_capabilities, Unset):
            capabilities = UNSET
        else:
            capabilities = PostApiComputeNodesRegisterBodyCapabilities.from_dict(
                _capabilities
            )

        _capacity = d.pop("capacity", UNSET)
        capacity: PostApiComputeNodesRegisterBodyCapacity | Unset
        if isinstance(_capacity, Unset):
            capacity = UNSET
        else:
            capacity = PostApiComputeNodesRegisterBodyCapacity.from_dict(_capacity)

        version = d.pop("version", UNSET)

        region = d.pop("region", UNSET)

        post_api_compute_nodes_register_body = cls(
            name=name,
            labels=labels,
            capabilities=capabilities,
            capacity=capacity,
            version=version,
            region=region,
        )

        return post_api_compute_nodes_register_body
