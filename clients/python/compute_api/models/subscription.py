from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.subscription_plan import SubscriptionPlan
from ..models.subscription_status import SubscriptionStatus

T = TypeVar("T", bound="Subscription")


@_attrs_define
class Subscription:
    """
    Attributes:
        plan (SubscriptionPlan):
        status (SubscriptionStatus):
        current_period_start (str):
        current_period_end (str):
        credit_usd (float): Prepaid credit in USD (at most 6 decimals)
    """

    plan: SubscriptionPlan
    status: SubscriptionStatus
    current_period_start: str
    current_period_end: str
    credit_usd: float
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        plan = self.plan.value

        status = self.status.value

        current_period_start = self.current_period_start

        current_period_end = self.current_period_end

        credit_usd = self.credit_usd

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "plan": plan,
                "status": status,
                "currentPeriodStart": current_period_start,
                "currentPeriodEnd": current_period_end,
                "creditUsd": credit_usd,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        plan = SubscriptionPlan(d.pop("plan"))

        status = SubscriptionStatus(d.pop("status"))

        current_period_start = d.pop("currentPeriodStart")

        current_period_end = d.pop("currentPeriodEnd")

        credit_usd = d.pop("creditUsd")

        subscription = cls(
            plan=plan,
            status=status,
            current_period_start=current_period_start,
            current_period_end=current_period_end,
            credit_usd=credit_usd,
        )

        subscription.additional_properties = d
        return subscription

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
