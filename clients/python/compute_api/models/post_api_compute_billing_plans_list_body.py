from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="PostApiComputeBillingPlansListBody")


@_attrs_define
class PostApiComputeBillingPlansListBody:
    def to_dict(self) -> dict[str, Any]:

        field_dict: dict[str, Any] = {}

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        post_api_compute_billing_plans_list_body = cls()

        return post_api_compute_billing_plans_list_body
