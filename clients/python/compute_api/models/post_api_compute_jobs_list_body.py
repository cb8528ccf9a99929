from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.labels import Labels


T = TypeVar("T", bound="PostApiComputeJobsListBody")


@_attrs_define
class PostApiComputeJobsListBody:
    """
    Attributes:
        state (list[str] | str | Unset):
        labels (Labels | Unset): Up to 64 key/value pairs.
        created_after (datetime.datetime | Unset):
        created_before (datetime.datetime | Unset):
        limit (int | Unset):  Default: 50.
        cursor (str | Unset):
    """

    state: list[str] | str | Unset = UNSET
    labels: Labels | Unset = UNSET
    created_after: datetime.datetime | Unset = UNSET
    created_before: datetime.datetime | Unset = UNSET
    limit: int | Unset = 50
    cursor: str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        state: list[str] | str | Unset
        if isinstance(self.state, Unset):
            state = UNSET
        elif isinstance(self.state, list):
            state = self.state

        else:
            state = self.state

        labels: dict[str, Any] | Unset = UNSET
        if not isinstance(self.labels, Unset):
            labels = self.labels.to_dict()

        created_after: str | Unset = UNSET
        if not isinstance(self.created_after, Unset):
            created_after = self.created_after.isoformat()

        created_before: str | Unset = UNSET
        if not isinstance(self.created_before, Unset):
            created_before = self.created_before.isoformat()

        limit = self.limit

        cursor = self.cursor

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if state is not UNSET:
            field_dict["state"] = state
        if labels is not UNSET:
            field_dict["labels"] = labels
        if created_after is not UNSET:
            field_dict["createdAfter"] = created_after
        if created_before is not UNSET:
            field_dict["createdBefore"] = created_before
        if limit is not UNSET:
            field_dict["limit"] = limit
        if cursor is not UNSET:
            field_dict["cursor"] = cursor

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.labels import Labels

        d = dict(src_dict)

        def _parse_state(data: object) -> list[str] | str | Unset:
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                state_type_1 = cast(list[str], data)

                return state_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | str | Unset, data)

        state = _parse_state(d.pop("state", UNSET))

        _labels = d.pop("labels", UNSET)
        labels: Labels | Unset
        if isinstance(_labels, Unset):
            labels = UNSET
        else:
            labels = Labels.from_dict(_labels)

        _created_after = d.pop("createdAfter", UNSET)
        created_after: datetime.datetime | Unset
        if isinstance(_created_after, Unset):
            created_after = UNSET
        else:
            created_after = datetime.datetime.fromisoformat(_created_after)

        _created_before = d.pop("createdBefore", UNSET)
        created_before: datetime.datetime | Unset
        if isinstance(_created_before, Unset):
            created_before = UNSET
        else:
            created_before = datetime.datetime.fromisoformat(_created_before)

        limit = d.pop("limit", UNSET)

        cursor = d.pop("cursor", UNSET)

        post_api_compute_jobs_list_body = cls(
            state=state,
            labels=labels,
            created_after=created_after,
            created_before=created_before,
            limit=limit,
            cursor=cursor,
        )

        return post_api_compute_jobs_list_body
