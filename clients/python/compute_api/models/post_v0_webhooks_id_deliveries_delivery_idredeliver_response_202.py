from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="PostV0WebhooksIdDeliveriesDeliveryIdredeliverResponse202")


@_attrs_define
class PostV0WebhooksIdDeliveriesDeliveryIdredeliverResponse202:
    """
    Attributes:
        webhook_id (str):
        event_id (str):
        redelivery_of (str):
    """

    webhook_id: str
    event_id: str
    redelivery_of: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        webhook_id = self.webhook_id

        event_id = self.event_id

        redelivery_of = self.redelivery_of

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "webhookId": webhook_id,
                "eventId": event_id,
                "redeliveryOf": redelivery_of,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        webhook_id = d.pop("webhookId")

        event_id = d.pop("eventId")

        redelivery_of = d.pop("redeliveryOf")

        post_v0_webhooks_id_deliveries_delivery_idredeliver_response_202 = cls(
            webhook_id=webhook_id,
            event_id=event_id,
            redelivery_of=redelivery_of,
        )

        post_v0_webhooks_id_deliveries_delivery_idredeliver_response_202.additional_properties = d
        return post_v0_webhooks_id_deliveries_delivery_idredeliver_response_202

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
