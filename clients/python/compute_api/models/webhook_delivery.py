from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.webhook_delivery_event_type import WebhookDeliveryEventType
from ..models.webhook_delivery_status import WebhookDeliveryStatus

T = TypeVar("T", bound="WebhookDelivery")


@_attrs_define
class WebhookDelivery:
    """
    Attributes:
        id (str):
        event_id (str): The `webhook-id` header: the same on every attempt and redelivery of the event
        event_type (WebhookDeliveryEventType):
        job_id (str):
        attempt (int): This event's attempt number at this endpoint, redeliveries included
        status (WebhookDeliveryStatus): `pending`: failed, and will be retried at `nextAttemptAt`; `failed`: given up on
            (or a redelivery that failed)
        redelivery (bool):
        response_status (int | None):
        response_body (None | str): The start of the receiver’s answer (WEBHOOK_RESPONSE_BODY_BYTES, 2 KiB by default)
        error (None | str):
        duration_ms (int):
        created_at (str):
        next_attempt_at (None | str):
    """

    id: str
    event_id: str
    event_type: WebhookDeliveryEventType
    job_id: str
    attempt: int
    status: WebhookDeliveryStatus
    redelivery: bool
    response_status: int | None
    response_body: None | str
    error: None | str
    duration_ms: int
    created_at: str
    next_attempt_at: None | str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        event_id = self.event_id

        event_type = self.event_type.value

        job_id = self.job_id

        attempt = self.attempt

        status = self.status.value

        redelivery = self.redelivery

        response_status: int | None
        response_status = self.response_status

        response_body: None | str
        response_body = self.response_body

        error: None | str
        error = self.error

        duration_ms = self.duration_ms

        created_at = self.created_at

        next_attempt_at: None | str
        next_attempt_at = self.next_attempt_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "eventId": event_id,
                "eventType": event_type,
                "jobId": job_id,
                "attempt": attempt,
                "status": status,
                "redelivery": redelivery,
                "responseStatus": response_status,
                "responseBody": response_body,
                "error": error,
                "durationMs": duration_ms,
                "createdAt": created_at,
                "nextAttemptAt": next_attempt_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        id = d.pop("id")

        event_id = d.pop("eventId")

        event_type = WebhookDeliveryEventType(d.pop("eventType"))

        job_id = d.pop("jobId")

        attempt = d.pop("attempt")

        status = WebhookDeliveryStatus(d.pop("status"))

        redelivery = d.pop("redelivery")

        def _parse_response_status(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        response_status = _parse_response_status(d.pop("responseStatus"))

        def _parse_response_body(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        response_body = _parse_response_body(d.pop("responseBody"))

        def _parse_error(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        error = _parse_error(d.pop("error"))

        duration_ms = d.pop("durationMs")

        created_at = d.pop("createdAt")

        def _parse_next_attempt_at(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        next_attempt_at = _parse_next_attempt_at(d.pop("nextAttemptAt"))

        webhook_delivery = cls(
            id=id,
            event_id=event_id,
            event_type=event_type,
            job_id=job_id,
            attempt=attempt,
            status=status,
            redelivery=redelivery,
            response_status=response_status,
            response_body=response_body,
            error=error,
            duration_ms=duration_ms,
            created_at=created_at,
            next_attempt_at=next_attempt_at,
        )

        webhook_delivery.additional_properties = d
        return webhook_delivery

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
