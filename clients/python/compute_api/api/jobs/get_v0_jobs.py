import datetime
from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.get_v0_jobs_response_200 import GetV0JobsResponse200
from ...models.get_v0_jobs_state_item import GetV0JobsStateItem
from ...models.get_v0_jobs_x_compute_api_version import GetV0JobsXComputeAPIVersion
from ...models.problem import Problem
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    state: list[GetV0JobsStateItem] | Unset = UNSET,
    label: list[str] | Unset = UNSET,
    created_after: datetime.datetime | Unset = UNSET,
    created_before: datetime.datetime | Unset = UNSET,
    page_size: int | Unset = 50,
    page_token: str | Unset = UNSET,
    x_compute_api_version: GetV0JobsXComputeAPIVersion | Unset = UNSET,
    x_compute_workspace: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(x_compute_api_version, Unset):
        headers["X-Compute-API-Version"] = str(x_compute_api_version)

    if not isinstance(x_compute_workspace, Unset):
        headers["X-Compute-Workspace"] = x_compute_workspace

    params: dict[str, Any] = {}

    json_state: list[str] | Unset = UNSET
    if not isinstance(state, Unset):
        json_state = []
        for state_item_data in state:
            state_item = state_item_data.value
            json_state.append(state_item)

    params["state"] = json_state

    json_label: list[str] | Unset = UNSET
    if not isinstance(label, Unset):
        json_label = label

    params["label"] = json_label

    json_created_after: str | Unset = UNSET
    if not isinstance(created_after, Unset):
        json_created_after = created_after.isoformat()
    params["createdAfter"] = json_created_after

    json_created_before: str | Unset = UNSET
    if not isinstance(created_before, Unset):
        json_created_before = created_before.isoformat()
    params["createdBefore"] = json_created_before

    params["pageSize"] = page_size

    params["pageToken"] = page_token

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v0/jobs",
        "params": params,
    }

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> GetV0JobsResponse200 | Problem | None:
    if response.status_code == 200:
        response_200 = GetV0JobsResponse200.from_dict(response.json())

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
) -> Response[GetV0JobsResponse200 | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    state: list[GetV0JobsStateItem] | Unset = UNSET,
    label: list[str] | Unset = UNSET,
    created_after: datetime.datetime | Unset = UNSET,
    created_before: datetime.datetime | Unset = UNSET,
    page_size: int | Unset = 50,
    page_token: str | Unset = UNSET,
    x_compute_api_version: GetV0JobsXComputeAPIVersion | Unset = UNSET,
    x_compute_workspace: str | Unset = UNSET,
) -> Response[GetV0JobsResponse200 | Problem]:
    """The active workspace's jobs, newest first; `state` and `label` repeat; a job submitted meanwhile
    never shifts a page

     Needs the role of action `job.read` (see the role table).

    Args:
        state (list[GetV0JobsStateItem] | Unset): Repeatable: any of these states
        label (list[str] | Unset): Repeatable `key=value`: all must match
        created_after (datetime.datetime | Unset):
        created_before (datetime.datetime | Unset):
        page_size (int | Unset): At most 200 Default: 50.
        page_token (str | Unset): nextPageToken of the previous page
        x_compute_api_version (GetV0JobsXComputeAPIVersion | Unset):
        x_compute_workspace (str | Unset): The workspace to act in (default: the token’s own, or
            the session’s personal one)

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[GetV0JobsResponse200 | Problem]
    """

    kwargs = _get_kwargs(
        state=state,
        label=label,
        created_after=created_after,
        created_before=created_before,
        page_size=page_size,
        page_token=page_token,
        x_compute_api_version=x_compute_api_version,
        x_compute_workspace=x_compute_workspace,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    state: list[GetV0JobsStateItem] | Unset = UNSET,
    label: list[str] | Unset = UNSET,
    created_after: datetime.datetime | Unset = UNSET,
    created_before: datetime.datetime | Unset = UNSET,
    page_size: int | Unset = 50,
    page_token: str | Unset = UNSET,
    x_compute_api_version: GetV0JobsXComputeAPIVersion | Unset = UNSET,
    x_compute_workspace: str | Unset = UNSET,
) -> GetV0JobsResponse200 | Problem | None:
    """The active workspace's jobs, newest first; `state` and `label` repeat; a job submitted meanwhile
    never shifts a page

     Needs the role of action `job.read` (see the role table).

    Args:
        state (list[GetV0JobsStateItem] | Unset): Repeatable: any of these states
        label (list[str] | Unset): Repeatable `key=value`: all must match
        created_after (datetime.datetime | Unset):
        created_before (datetime.datetime | Unset):
        page_size (int | Unset): At most 200 Default: 50.
        page_token (str | Unset): nextPageToken of the previous page
        x_compute_api_version (GetV0JobsXComputeAPIVersion | Unset):
        x_compute_workspace (str | Unset): The workspace to act in (default: the token’s own, or
            the session’s personal one)

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        GetV0JobsResponse200 | Problem
    """

    return sync_detailed(
        client=client,
        state=state,
        label=label,
        created_after=created_after,
        created_before=created_before,
        page_size=page_size,
        page_token=page_token,
        x_compute_api_version=x_compute_api_version,
        x_compute_workspace=x_compute_workspace,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    state: list[GetV0JobsStateItem] | Unset = UNSET,
    label: list[str] | Unset = UNSET,
    created_after: datetime.datetime | Unset = UNSET,
    created_before: datetime.datetime | Unset = UNSET,
    page_size: int | Unset = 50,
    page_token: str | Unset = UNSET,
    x_compute_api_version: GetV0JobsXComputeAPIVersion | Unset = UNSET,
    x_compute_workspace: str | Unset = UNSET,
) -> Response[GetV0JobsResponse200 | Problem]:
    """The active workspace's jobs, newest first; `state` and `label` repeat; a job submitted meanwhile
    never shifts a page

     Needs the role of action `job.read` (see the role table).

    Args:
        state (list[GetV0JobsStateItem] | Unset): Repeatable: any of these states
        label (list[str] | Unset): Repeatable `key=value`: all must match
        created_after (datetime.datetime | Unset):
        created_before (datetime.datetime | Unset):
        page_size (int | Unset): At most 200 Default: 50.
        page_token (str | Unset): nextPageToken of the previous page
        x_compute_api_version (GetV0JobsXComputeAPIVersion | Unset):
        x_compute_workspace (str | Unset): The workspace to act in (default: the token’s own, or
            the session’s personal one)

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[GetV0JobsResponse200 | Problem]
    """

    kwargs = _get_kwargs(
        state=state,
        label=label,
        created_after=created_after,
        created_before=created_before,
        page_size=page_size,
        page_token=page_token,
        x_compute_api_version=x_compute_api_version,
        x_compute_workspace=x_compute_workspace,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    state: list[GetV0JobsStateItem] | Unset = UNSET,
    label: list[str] | Unset = UNSET,
    created_after: datetime.datetime | Unset = UNSET,
    created_before: datetime.datetime | Unset = UNSET,
    page_size: int | Unset = 50,
    page_token: str | Unset = UNSET,
    x_compute_api_version: GetV0JobsXComputeAPIVersion | Unset = UNSET,
    x_compute_workspace: str | Unset = UNSET,
) -> GetV0JobsResponse200 | Problem | None:
    """The active workspace's jobs, newest first; `state` and `label` repeat; a job submitted meanwhile
    never shifts a page

     Needs the role of action `job.read` (see the role table).

    Args:
        state (list[GetV0JobsStateItem] | Unset): Repeatable: any of these states
        label (list[str] | Unset): Repeatable `key=value`: all must match
        created_after (datetime.datetime | Unset):
        created_before (datetime.datetime | Unset):
        page_size (int | Unset): At most 200 Default: 50.
        page_token (str | Unset): nextPageToken of the previous page
        x_compute_api_version (GetV0JobsXComputeAPIVersion | Unset):
        x_compute_workspace (str | Unset): The workspace to act in (default: the token’s own, or
            the session’s personal one)

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        GetV0JobsResponse200 | Problem
    """

    return (
        await asyncio_detailed(
            client=client,
            state=state,
            label=label,
            created_after=created_after,
            created_before=created_before,
            page_size=page_size,
            page_token=page_token,
            x_compute_api_version=x_compute_api_version,
            x_compute_workspace=x_compute_workspace,
        )
    ).parsed
