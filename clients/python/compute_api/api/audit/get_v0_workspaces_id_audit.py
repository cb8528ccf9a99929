import datetime
from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.get_v0_workspaces_id_audit_format import GetV0WorkspacesIdAuditFormat
from ...models.get_v0_workspaces_id_audit_response_200 import (
    GetV0WorkspacesIdAuditResponse200,
)
from ...models.get_v0_workspaces_id_audit_x_compute_api_version import (
    GetV0WorkspacesIdAuditXComputeAPIVersion,
)
from ...models.problem import Problem
from ...types import UNSET, Response, Unset


def _get_kwargs(
    id: str,
    *,
    page_size: int | Unset = 50,
    page_token: str | Unset = UNSET,
    actor: str | Unset = UNSET,
    action: list[str] | Unset = UNSET,
    target_id: str | Unset = UNSET,
    since: datetime.datetime | Unset = UNSET,
    until: datetime.datetime | Unset = UNSET,
    format_: GetV0WorkspacesIdAuditFormat | Unset = GetV0WorkspacesIdAuditFormat.JSON,
    x_compute_api_version: GetV0WorkspacesIdAuditXComputeAPIVersion | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(x_compute_api_version, Unset):
        headers["X-Compute-API-Version"] = str(x_compute_api_version)

    params: dict[str, Any] = {}

    params["pageSize"] = page_size

    params["pageToken"] = page_token

    params["actor"] = actor

    json_action: list[str] | Unset = UNSET
    if not isinstance(action, Unset):
        json_action = action

    params["action"] = json_action

    params["targetId"] = target_id

    json_since: str | Unset = UNSET
    if not isinstance(since, Unset):
        json_since = since.isoformat()
    params["since"] = json_since

    json_until: str | Unset = UNSET
    if not isinstance(until, Unset):
        json_until = until.isoformat()
    params["until"] = json_until

    json_format_: str | Unset = UNSET
    if not isinstance(format_, Unset):
        json_format_ = format_.value

    params["format"] = json_format_

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v0/workspaces/{id}/audit".format(
            id=quote(str(id), safe=""),
        ),
        "params": params,
    }

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> GetV0WorkspacesIdAuditResponse200 | Problem | None:
    if response.status_code == 200:
        response_200 = GetV0WorkspacesIdAuditResponse200.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = Problem.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = Problem.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = Problem.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = Problem.from_dict(response.json())

        return response_404

    if response.status_code == 413:
        response_413 = Problem.from_dict(response.json())

        return response_413

    if response.status_code == 429:
        response_429 = Problem.from_dict(response.json())

        return response_429

    if response.status_code == 503:
        response_503 = Problem.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[GetV0WorkspacesIdAuditResponse200 | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    id: str,
    *,
    client: AuthenticatedClient,
    page_size: int | Unset = 50,
    page_token: str | Unset = UNSET,
    actor: str | Unset = UNSET,
    action: list[str] | Unset = UNSET,
    target_id: str | Unset = UNSET,
    since: datetime.datetime | Unset = UNSET,
    until: datetime.datetime | Unset = UNSET,
    format_: GetV0WorkspacesIdAuditFormat | Unset = GetV0WorkspacesIdAuditFormat.JSON,
    x_compute_api_version: GetV0WorkspacesIdAuditXComputeAPIVersion | Unset = UNSET,
) -> Response[GetV0WorkspacesIdAuditResponse200 | Problem]:
    """The audit log (admin), newest first: every change through either surface and every refused attempt.
    `format=jsonl` streams every matching entry up to the newest at the start as application/jsonl,
    oldest first, read page by page as the client takes it (no paging). At most
    AUDIT_EXPORTS_PER_CREDENTIAL (default 2) exports per credential and AUDIT_EXPORTS_PER_INSTANCE
    (default 10) per API instance at once: past either, 429 rate_limit.exceeded with Retry-After. A
    credential revoked or expired during an export cuts its response short (no final chunk)

     Needs the role of action `audit.read` (see the role table).

    Args:
        id (str):
        page_size (int | Unset): At most 200 Default: 50.
        page_token (str | Unset): nextPageToken of the previous page
        actor (str | Unset): The actor’s ID
        action (list[str] | Unset): Repeatable: any of these actions
        target_id (str | Unset):
        since (datetime.datetime | Unset): Entries at or after (ISO 8601)
        until (datetime.datetime | Unset): Entries before (ISO 8601)
        format_ (GetV0WorkspacesIdAuditFormat | Unset):  Default:
            GetV0WorkspacesIdAuditFormat.JSON.
        x_compute_api_version (GetV0WorkspacesIdAuditXComputeAPIVersion | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[GetV0WorkspacesIdAuditResponse200 | Problem]
    """

    kwargs = _get_kwargs(
        id=id,
        page_size=page_size,
        page_token=page_token,
        actor=actor,
        action=action,
        target_id=target_id,
        since=since,
        until=until,
        format_=format_,
        x_compute_api_version=x_compute_api_version,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    id: str,
    *,
    client: AuthenticatedClient,
    page_size: int | Unset = 50,
    page_token: str | Unset = UNSET,
    actor: str | Unset = UNSET,
    action: list[str] | Unset = UNSET,
    target_id: str | Unset = UNSET,
    since: datetime.datetime | Unset = UNSET,
    until: datetime.datetime | Unset = UNSET,
    format_: GetV0WorkspacesIdAuditFormat | Unset = GetV0WorkspacesIdAuditFormat.JSON,
    x_compute_api_version: GetV0WorkspacesIdAuditXComputeAPIVersion | Unset = UNSET,
) -> GetV0WorkspacesIdAuditResponse200 | Problem | None:
    """The audit log (admin), newest first: every change through either surface and every refused attempt.
    `format=jsonl` streams every matching entry up to the newest at the start as application/jsonl,
    oldest first, read page by page as the client takes it (no paging). At most
    AUDIT_EXPORTS_PER_CREDENTIAL (default 2) exports per credential and AUDIT_EXPORTS_PER_INSTANCE
    (default 10) per API instance at once: past either, 429 rate_limit.exceeded with Retry-After. A
    credential revoked or expired during an export cuts its response short (no final chunk)

     Needs the role of action `audit.read` (see the role table).

    Args:
        id (str):
        page_size (int | Unset): At most 200 Default: 50.
        page_token (str | Unset): nextPageToken of the previous page
        actor (str | Unset): The actor’s ID
        action (list[str] | Unset): Repeatable: any of these actions
        target_id (str | Unset):
        since (datetime.datetime | Unset): Entries at or after (ISO 8601)
        until (datetime.datetime | Unset): Entries before (ISO 8601)
        format_ (GetV0WorkspacesIdAuditFormat | Unset):  Default:
            GetV0WorkspacesIdAuditFormat.JSON.
        x_compute_api_version (GetV0WorkspacesIdAuditXComputeAPIVersion | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        GetV0WorkspacesIdAuditResponse200 | Problem
    """

    return sync_detailed(
        id=id,
        client=client,
        page_size=page_size,
        page_token=page_token,
        actor=actor,
        action=action,
        target_id=target_id,
        since=since,
        until=until,
        format_=format_,
        x_compute_api_version=x_compute_api_version,
    ).parsed


async def asyncio_detailed(
    id: str,
    *,
    client: AuthenticatedClient,
    page_size: int | Unset = 50,
    page_token: str | Unset = UNSET,
    actor: str | Unset = UNSET,
    action: list[str] | Unset = UNSET,
    target_id: str | Unset = UNSET,
    since: datetime.datetime | Unset = UNSET,
    until: datetime.datetime | Unset = UNSET,
    format_: GetV0WorkspacesIdAuditFormat | Unset = GetV0WorkspacesIdAuditFormat.JSON,
    x_compute_api_version: GetV0WorkspacesIdAuditXComputeAPIVersion | Unset = UNSET,
) -> Response[GetV0WorkspacesIdAuditResponse200 | Problem]:
    """The audit log (admin), newest first: every change through either surface and every refused attempt.
    `format=jsonl` streams every matching entry up to the newest at the start as application/jsonl,
    oldest first, read page by page as the client takes it (no paging). At most
    AUDIT_EXPORTS_PER_CREDENTIAL (default 2) exports per credential and AUDIT_EXPORTS_PER_INSTANCE
    (default 10) per API instance at once: past either, 429 rate_limit.exceeded with Retry-After. A
    credential revoked or expired during an export cuts its response short (no final chunk)

     Needs the role of action `audit.read` (see the role table).

    Args:
        id (str):
        page_size (int | Unset): At most 200 Default: 50.
        page_token (str | Unset): nextPageToken of the previous page
        actor (str | Unset): The actor’s ID
        action (list[str] | Unset): Repeatable: any of these actions
        target_id (str | Unset):
        since (datetime.datetime | Unset): Entries at or after (ISO 8601)
        until (datetime.datetime | Unset): Entries before (ISO 8601)
        format_ (GetV0WorkspacesIdAuditFormat | Unset):  Default:
            GetV0WorkspacesIdAuditFormat.JSON.
        x_compute_api_version (GetV0WorkspacesIdAuditXComputeAPIVersion | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[GetV0WorkspacesIdAuditResponse200 | Problem]
    """

    kwargs = _get_kwargs(
        id=id,
        page_size=page_size,
        page_token=page_token,
        actor=actor,
        action=action,
        target_id=target_id,
        since=since,
        until=until,
        format_=format_,
        x_compute_api_version=x_compute_api_version,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    id: str,
    *,
    client: AuthenticatedClient,
    page_size: int | Unset = 50,
    page_token: str | Unset = UNSET,
    actor: str | Unset = UNSET,
    action: list[str] | Unset = UNSET,
    target_id: str | Unset = UNSET,
    since: datetime.datetime | Unset = UNSET,
    until: datetime.datetime | Unset = UNSET,
    format_: GetV0WorkspacesIdAuditFormat | Unset = GetV0WorkspacesIdAuditFormat.JSON,
    x_compute_api_version: GetV0WorkspacesIdAuditXComputeAPIVersion | Unset = UNSET,
) -> GetV0WorkspacesIdAuditResponse200 | Problem | None:
    """The audit log (admin), newest first: every change through either surface and every refused attempt.
    `format=jsonl` streams every matching entry up to the newest at the start as application/jsonl,
    oldest first, read page by page as the client takes it (no paging). At most
    AUDIT_EXPORTS_PER_CREDENTIAL (default 2) exports per credential and AUDIT_EXPORTS_PER_INSTANCE
    (default 10) per API instance at once: past either, 429 rate_limit.exceeded with Retry-After. A
    credential revoked or expired during an export cuts its response short (no final chunk)

     Needs the role of action `audit.read` (see the role table).

    Args:
        id (str):
        page_size (int | Unset): At most 200 Default: 50.
        page_token (str | Unset): nextPageToken of the previous page
        actor (str | Unset): The actor’s ID
        action (list[str] | Unset): Repeatable: any of these actions
        target_id (str | Unset):
        since (datetime.datetime | Unset): Entries at or after (ISO 8601)
        until (datetime.datetime | Unset): Entries before (ISO 8601)
        format_ (GetV0WorkspacesIdAuditFormat | Unset):  Default:
            GetV0WorkspacesIdAuditFormat.JSON.
        x_compute_api_version (GetV0WorkspacesIdAuditXComputeAPIVersion | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        GetV0WorkspacesIdAuditResponse200 | Problem
    """

    return (
        await asyncio_detailed(
            id=id,
            client=client,
            page_size=page_size,
            page_token=page_token,
            actor=actor,
            action=action,
            target_id=target_id,
            since=since,
            until=until,
            format_=format_,
            x_compute_api_version=x_compute_api_version,
        )
    ).parsed
