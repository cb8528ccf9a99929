from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.problem_details import ProblemDetails
    from ..models.problem_errors_item import ProblemErrorsItem


T = TypeVar("T", bound="Problem")


@_attrs_define
class Problem:
    """RFC 9457 problem details; `errors` names each bad field (also in `details.fields`)

    Attributes:
        type_ (str):
        title (str):
        status (int):
        detail (str):
        code (str):
        errors (list[ProblemErrorsItem] | Unset):
        details (ProblemDetails | Unset):
        request_id (str | Unset): The X-Request-Id of this request, as the service logged it
    """

    type_: str
    title: str
    status: int
    detail: str
    code: str
    errors: list[ProblemErrorsItem] | Unset = UNSET
    details: ProblemDetails | Unset = UNSET
    request_id: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        type_ = self.type_

        title = self.title

        status = self.status

        detail = self.detail

        code = self.code

        errors: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.errors, Unset):
            errors = []
            for errors_item_data in self.errors:
                errors_item = errors_item_data.to_dict()
                errors.append(errors_item)

        details: dict[str, Any] | Unset = UNSET
        if not isinstance(self.details, Unset):
            details = self.details.to_dict()

        request_id = self.request_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "type": type_,
                "title": title,
                "status": status,
                "detail": detail,
                "code": code,
            }
        )
        if errors is not UNSET:
            field_dict["errors"] = errors
        if details is not UNSET:
            field_dict["details"] = details
        if request_id is not UNSET:
            field_dict["requestId"] = request_id

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.problem_details import ProblemDetails
        from ..models.problem_errors_item import ProblemErrorsItem

        d = dict(src_dict)
        type_ = d.pop("type")

        title = d.pop("title")

        status = d.pop("status")

        detail = d.pop("detail")

        code = d.pop("code")

        _errors = d.pop("errors", UNSET)
        errors: list[ProblemErrorsItem] | Unset = UNSET
        if _errors is not UNSET:
            errors = []
            for errors_item_data in _errors:
                errors_item = ProblemErrorsItem.from_dict(errors_item_data)

                errors.append(errors_item)

        _details = d.pop("details", UNSET)
        details: ProblemDetails | Unset
        if isinstance(_details, Unset):
            details = UNSET
        else:
            details = ProblemDetails.from_dict(_details)

        request_id = d.pop("requestId", UNSET)

        problem = cls(
            type_=type_,
            title=title,
            status=status,
            detail=detail,
            code=code,
            errors=errors,
            details=details,
            request_id=request_id,
        )

        problem.additional_properties = d
        return problem

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
