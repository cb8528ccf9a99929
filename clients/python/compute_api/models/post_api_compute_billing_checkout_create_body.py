from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="PostApiComputeBillingCheckoutCreateBody")


@_attrs_define
class PostApiComputeBillingCheckoutCreateBody:
    """
    Attributes:
        plan (str):
        success_url (str): Where Stripe sends the customer after paying
        cancel_url (str): Where Stripe sends the customer who gives up
    """

    plan: str
    success_url: str
    cancel_url: str

    def to_dict(self) -> dict[str, Any]:
        plan = self.plan

        success_url = self.success_url

        cancel_url = self.cancel_url

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "plan": plan,
                "successUrl": success_url,
                "cancelUrl": cancel_url,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        plan = d.pop("plan")

        success_url = d.pop("successUrl")

        cancel_url = d.pop("cancelUrl")

        post_api_compute_billing_checkout_create_body = cls(
            plan=plan,
            success_url=success_url,
            cancel_url=cancel_url,
        )

        return post_api_compute_billing_checkout_create_body
