from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.webhook_events_item import WebhookEventsItem

T = TypeVar("T", bound="Webhook")


@_attrs_define
class Webhook:
    """
    Attributes:
        id (str):
        url (str):
        events (list[WebhookEventsItem]):
        description (None | str):
        enabled (bool): False once the receiver answered 410 (or the endpoint was deleted): nothing more is sent
        disabled_reason (None | str):
        created_at (str):
        previous_secret_expires_at (None | str): Until then, after a rotation, the previous secret signs too
    """

    id: str
    url: str
    events: list[WebhookEventsItem]
    description: None | str
    enabled: bool
    disabled_reason: None | str
    created_at: str
    previous_secret_expires_at: None | str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        url = self.url

        events = []
        for events_item_data in self.events:
            events_item = events_item_data.value
            events.append(events_item)

        description: None | str
        description = self.description

        enabled = self.enabled

        disabled_reason: None | str
        disabled_reason = self.disabled_reason

        created_at = self.created_at

        previous_secret_expires_at: None | str
        previous_secret_expires_at = self.previous_secret_expires_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "url": url,
                "events": events,
                "description": description,
                "enabled": enabled,
                "disabledReason": disabled_reason,
                "createdAt": created_at,
                "previousSecretExpiresAt": previous_secret_expires_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        id = d.pop("id")

        url = d.pop("url")

        events = []
        _events = d.pop("events")
        for events_item_data in _events:
            events_item = WebhookEventsItem(events_item_data)

            events.append(events_item)

        def _parse_description(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        description = _parse_description(d.pop("description"))

        enabled = d.pop("enabled")

        def _parse_disabled_reason(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        disabled_reason = _parse_disabled_reason(d.pop("disabledReason"))

        created_at = d.pop("createdAt")

        def _parse_previous_secret_expires_at(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        previous_secret_expires_at = _parse_previous_secret_expires_at(
            d.pop("previousSecretExpiresAt")
        )

        webhook = cls(
            id=id,
            url=url,
            events=events,
            description=description,
            enabled=enabled,
            disabled_reason=disabled_reason,
            created_at=created_at,
            previous_secret_expires_at=previous_secret_expires_at,
        )

        webhook.additional_properties = d
        return webhook

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
