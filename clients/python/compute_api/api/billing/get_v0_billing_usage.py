import datetime
from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.get_v0_billing_usage_x_compute_api_version import (
    GetV0BillingUsageXComputeAPIVersion,
)
from ...models.problem import Problem
from ...models.usage import Usage
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    window_start: datetime.datetime | Unset = UNSET,
    window_end: datetime.datetime | Unset = UNSET,
    x_compute_api_version: GetV0BillingUsageXComputeAPIVersion | Unset = UNSET,
    x_compute_workspace: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(x_compute_api_version, Unset):
        headers["X-Compute-API-Version"] = str(x_compute_api_version)

    if not isinstance(x_compute_workspace, Unset):
        headers["X-Compute-Workspace"] = x_compute_workspace

    params: dict[str, Any] = {}

    json_window_start: str | Unset = UNSET
    if not isinstance(window_start, Unset):
        json_window_start = window_start.isoformat()
    params["windowStart"] = json_window_start

    json_window_end: str | Unset = UNSET
    if not isinstance(window_end, Unset):
        json_window_end = window_end.isoformat()
    params["windowEnd"] = json_window_end

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v0/billing/usage",
        "params": params,
    }

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Problem | Usage | None:
    if response.status_code == 200:
        response_200 = Usage.from_dict(response.json())

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
) -> Response[Problem | Usage]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    window_start: datetime.datetime | Unset = UNSET,
    window_end: datetime.datetime | Unset = UNSET,
    x_compute_api_version: GetV0BillingUsageXComputeAPIVersion | Unset = UNSET,
    x_compute_workspace: str | Unset = UNSET,
) -> Response[Problem | Usage]:
    """The active workspace's usage in CPU-, GPU- and GB-seconds with a USD estimate, managed and self
    apart (default window: the current period)

     Needs the role of action `billing.read` (see the role table).

    Args:
        window_start (datetime.datetime | Unset):
        window_end (datetime.datetime | Unset):
        x_compute_api_version (GetV0BillingUsageXComputeAPIVersion | Unset):
        x_compute_workspace (str | Unset): The workspace to act in (default: the token’s own, or
            the session’s personal one)

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | Usage]
    """

    kwargs = _get_kwargs(
        window_start=window_start,
        window_end=window_end,
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
    window_start: datetime.datetime | Unset = UNSET,
    window_end: datetime.datetime | Unset = UNSET,
    x_compute_api_version: GetV0BillingUsageXComputeAPIVersion | Unset = UNSET,
    x_compute_workspace: str | Unset = UNSET,
) -> Problem | Usage | None:
    """The active workspace's usage in CPU-, GPU- and GB-seconds with a USD estimate, managed and self
    apart (default window: the current period)

     Needs the role of action `billing.read` (see the role table).

    Args:
        window_start (datetime.datetime | Unset):
        window_end (datetime.datetime | Unset):
        x_compute_api_version (GetV0BillingUsageXComputeAPIVersion | Unset):
        x_compute_workspace (str | Unset): The workspace to act in (default: the token’s own, or
            the session’s personal one)

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | Usage
    """

    return sync_detailed(
        client=client,
        window_start=window_start,
        window_end=window_end,
        x_compute_api_version=x_compute_api_version,
        x_compute_workspace=x_compute_workspace,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    window_start: datetime.datetime | Unset = UNSET,
    window_end: datetime.datetime | Unset = UNSET,
    x_compute_api_version: GetV0BillingUsageXComputeAPIVersion | Unset = UNSET,
    x_compute_workspace: str | Unset = UNSET,
) -> Response[Problem | Usage]:
    """The active workspace's usage in CPU-, GPU- and GB-seconds with a USD estimate, managed and self
    apart (default window: the current period)

     Needs the role of action `billing.read` (see the role table).

    Args:
        window_start (datetime.datetime | Unset):
        window_end (datetime.datetime | Unset):
        x_compute_api_version (GetV0BillingUsageXComputeAPIVersion | Unset):
        x_compute_workspace (str | Unset): The workspace to act in (default: the token’s own, or
            the session’s personal one)

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | Usage]
    """

    kwargs = _get_kwargs(
        window_start=window_start,
        window_end=window_end,
        x_compute_api_version=x_compute_api_version,
        x_compute_workspace=x_compute_workspace,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    window_start: datetime.datetime | Unset = UNSET,
    window_end: datetime.datetime | Unset = UNSET,
    x_compute_api_version: GetV0BillingUsageXComputeAPIVersion | Unset = UNSET,
    x_compute_workspace: str | Unset = UNSET,
) -> Problem | Usage | None:
    """The active workspace's usage in CPU-, GPU- and GB-seconds with a USD estimate, managed and self
    apart (default window: the current period)

     Needs the role of action `billing.read` (see the role table).

    Args:
        window_start (datetime.datetime | Unset):
        window_end (datetime.datetime | Unset):
        x_compute_api_version (GetV0BillingUsageXComputeAPIVersion | Unset):
        x_compute_workspace (str | Unset): The workspace to act in (default: the token’s own, or
            the session’s personal one)

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | Usage
    """

    return (
        await asyncio_detailed(
            client=client,
            window_start=window_start,
            window_end=window_end,
            x_compute_api_version=x_compute_api_version,
            x_compute_workspace=x_compute_workspace,
        )
    ).parsed
