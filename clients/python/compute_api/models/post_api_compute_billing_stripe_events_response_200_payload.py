from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.post_api_compute_billing_stripe_events_response_200_payload_outcome import (
    PostApiComputeBillingStripeEventsResponse200PayloadOutcome,
)

T = TypeVar("T", bound="PostApiComputeBillingStripeEventsResponse200Payload")


@_attrs_define
class PostApiComputeBillingStripeEventsResponse200Payload:
    """
    Attributes:
        received (bool):
        outcome (PostApiComputeBillingStripeEventsResponse200PayloadOutcome): applied; stale (a newer state of the
            subscription was applied already); ignored (a type or object we do not act on); duplicate (this event id was
            applied before)
    """

    received: bool
    outcome: PostApiComputeBillingStripeEventsResponse200PayloadOutcome
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        received = self.received

        outcome = self.outcome.value

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "received": received,
                "outcome": outcome,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        received = d.pop("received")

        outcome = PostApiComputeBillingStripeEventsResponse200PayloadOutcome(
            d.pop("outcome")
        )

        post_api_compute_billing_stripe_events_response_200_payload = cls(
            received=received,
            outcome=outcome,
        )

        post_api_compute_billing_stripe_events_response_200_payload.additional_properties = d
        return post_api_compute_billing_stripe_events_response_200_payload

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
