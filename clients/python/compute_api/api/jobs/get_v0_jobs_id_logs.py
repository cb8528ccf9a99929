from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.get_v0_jobs_id_logs_follow import GetV0JobsIdLogsFollow
from ...models.get_v0_jobs_id_logs_response_200 import GetV0JobsIdLogsResponse200
from ...models.get_v0_jobs_id_logs_x_compute_api_version import (
    GetV0JobsIdLogsXComputeAPIVersion,
)
from ...models.problem import Problem
from ...types import UNSET, Response, Unset


def _get_kwargs(
    id: str,
    *,
    after_seq: int | None | Unset = 0,
    limit: int | Unset = 1000,
    follow: GetV0JobsIdLogsFollow | Unset = GetV0JobsIdLogsFollow.FALSE,
    x_compute_api_version: GetV0JobsIdLogsXComputeAPIVersion | Unset = UNSET,
    x_compute_workspace: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(x_compute_api_version, Unset):
        headers["X-Compute-API-Version"] = str(x_compute_api_version)

    if not isinstance(x_compute_workspace, Unset):
        headers["X-Compute-Workspace"] = x_compute_workspace

    params: dict[str, Any] = {}

    json_after_seq: int | None | Unset
    if isinstance(after_seq, Unset):
        json_after_seq = UNSET
    else:
        json_after_seq = after_seq
    params["afterSeq"] = json_after_seq

    params["limit"] = limit

    json_follow: str | Unset = UNSET
    if not isinstance(follow, Unset):
        json_follow = follow.value

    params["follow"] = json_follow

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v0/jobs/{id}/logs".format(
            id=quote(str(id), safe=""),
        ),
        "params": params,
    }

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> GetV0JobsIdLogsResponse200 | Problem | None:
    if response.status_code == 200:
        response_200 = GetV0JobsIdLogsResponse200.from_dict(response.json())

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
) -> Response[GetV0JobsIdLogsResponse200 | Problem]:
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
    after_seq: int | None | Unset = 0,
    limit: int | Unset = 1000,
    follow: GetV0JobsIdLogsFollow | Unset = GetV0JobsIdLogsFollow.FALSE,
    x_compute_api_version: GetV0JobsIdLogsXComputeAPIVersion | Unset = UNSET,
    x_compute_workspace: str | Unset = UNSET,
) -> Response[GetV0JobsIdLogsResponse200 | Problem]:
    """A page of the job's log after `afterSeq`: `nextSeq` is the next call's `afterSeq`, `complete` is
    true when the job is over and this page holds its last line. `follow=true`: the SSE stream of
    CONTRACT §7 instead (resume with Last-Event-ID)

     Needs the role of action `job.read` (see the role table).

    Args:
        id (str):
        after_seq (int | None | Unset):  Default: 0.
        limit (int | Unset):  Default: 1000.
        follow (GetV0JobsIdLogsFollow | Unset):  Default: GetV0JobsIdLogsFollow.FALSE.
        x_compute_api_version (GetV0JobsIdLogsXComputeAPIVersion | Unset):
        x_compute_workspace (str | Unset): The workspace to act in (default: the token’s own, or
            the session’s personal one)

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[GetV0JobsIdLogsResponse200 | Problem]
    """

    kwargs = _get_kwargs(
        id=id,
        after_seq=after_seq,
        limit=limit,
        follow=follow,
        x_compute_api_version=x_compute_api_version,
        x_compute_workspace=x_compute_workspace,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    id: str,
    *,
    client: AuthenticatedClient,
    after_seq: int | None | Unset = 0,
    limit: int | Unset = 1000,
    follow: GetV0JobsIdLogsFollow | Unset = GetV0JobsIdLogsFollow.FALSE,
    x_compute_api_version: GetV0JobsIdLogsXComputeAPIVersion | Unset = UNSET,
    x_compute_workspace: str | Unset = UNSET,
) -> GetV0JobsIdLogsResponse200 | Problem | None:
    """A page of the job's log after `afterSeq`: `nextSeq` is the next call's `afterSeq`, `complete` is
    true when the job is over and this page holds its last line. `follow=true`: the SSE stream of
    CONTRACT §7 instead (resume with Last-Event-ID)

     Needs the role of action `job.read` (see the role table).

    Args:
        id (str):
        after_seq (int | None | Unset):  Default: 0.
        limit (int | Unset):  Default: 1000.
        follow (GetV0JobsIdLogsFollow | Unset):  Default: GetV0JobsIdLogsFollow.FALSE.
        x_compute_api_version (GetV0JobsIdLogsXComputeAPIVersion | Unset):
        x_compute_workspace (str | Unset): The workspace to act in (default: the token’s own, or
            the session’s personal one)

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        GetV0JobsIdLogsResponse200 | Problem
    """

    return sync_detailed(
        id=id,
        client=client,
        after_seq=after_seq,
        limit=limit,
        follow=follow,
        x_compute_api_version=x_compute_api_version,
        x_compute_workspace=x_compute_workspace,
    ).parsed


async def asyncio_detailed(
    id: str,
    *,
    client: AuthenticatedClient,
    after_seq: int | None | Unset = 0,
    limit: int | Unset = 1000,
    follow: GetV0JobsIdLogsFollow | Unset = GetV0JobsIdLogsFollow.FALSE,
    x_compute_api_version: GetV0JobsIdLogsXComputeAPIVersion | Unset = UNSET,
    x_compute_workspace: str | Unset = UNSET,
) -> Response[GetV0JobsIdLogsResponse200 | Problem]:
    """A page of the job's log after `afterSeq`: `nextSeq` is the next call's `afterSeq`, `complete` is
    true when the job is over and this page holds its last line. `follow=true`: the SSE stream of
    CONTRACT §7 instead (resume with Last-Event-ID)

     Needs the role of action `job.read` (see the role table).

    Args:
        id (str):
        after_seq (int | None | Unset):  Default: 0.
        limit (int | Unset):  Default: 1000.
        follow (GetV0JobsIdLogsFollow | Unset):  Default: GetV0JobsIdLogsFollow.FALSE.
        x_compute_api_version (GetV0JobsIdLogsXComputeAPIVersion | Unset):
        x_compute_workspace (str | Unset): The workspace to act in (default: the token’s own, or
            the session’s personal one)

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[GetV0JobsIdLogsResponse200 | Problem]
    """

    kwargs = _get_kwargs(
        id=id,
        after_seq=after_seq,
        limit=limit,
        follow=follow,
        x_compute_api_version=x_compute_api_version,
        x_compute_workspace=x_compute_workspace,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    id: str,
    *,
    client: AuthenticatedClient,
    after_seq: int | None | Unset = 0,
    limit: int | Unset = 1000,
    follow: GetV0JobsIdLogsFollow | Unset = GetV0JobsIdLogsFollow.FALSE,
    x_compute_api_version: GetV0JobsIdLogsXComputeAPIVersion | Unset = UNSET,
    x_compute_workspace: str | Unset = UNSET,
) -> GetV0JobsIdLogsResponse200 | Problem | None:
    """A page of the job's log after `afterSeq`: `nextSeq` is the next call's `afterSeq`, `complete` is
    true when the job is over and this page holds its last line. `follow=true`: the SSE stream of
    CONTRACT §7 instead (resume with Last-Event-ID)

     Needs the role of action `job.read` (see the role table).

    Args:
        id (str):
        after_seq (int | None | Unset):  Default: 0.
        limit (int | Unset):  Default: 1000.
        follow (GetV0JobsIdLogsFollow | Unset):  Default: GetV0JobsIdLogsFollow.FALSE.
        x_compute_api_version (GetV0JobsIdLogsXComputeAPIVersion | Unset):
        x_compute_workspace (str | Unset): The workspace to act in (default: the token’s own, or
            the session’s personal one)

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        GetV0JobsIdLogsResponse200 | Problem
    """

    return (
        await asyncio_detailed(
            id=id,
            client=client,
            after_seq=after_seq,
            limit=limit,
            follow=follow,
            x_compute_api_version=x_compute_api_version,
            x_compute_workspace=x_compute_workspace,
        )
    ).parsed
