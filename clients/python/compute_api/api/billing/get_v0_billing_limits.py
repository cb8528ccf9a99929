from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.get_v0_billing_limits_x_compute_api_version import (
    GetV0BillingLimitsXComputeAPIVersion,
)
from ...models.limits import Limits
from ...models.problem import Problem
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    x_compute_api_version: GetV0BillingLimitsXComputeAPIVersion | Unset = UNSET,
    x_compute_workspace: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(x_compute_api_version, Unset):
        headers["X-Compute-API-Version"] = str(x_compute_api_version)

    if not isinstance(x_compute_workspace, Unset):
        headers["X-Compute-Workspace"] = x_compute_workspace

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v0/billing/limits",
    }

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Limits | Problem | None:
    if response.status_code == 200:
        response_200 = Limits.from_dict(response.json())

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
) -> Response[Limits | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    x_compute_api_version: GetV0BillingLimitsXComputeAPIVersion | Unset = UNSET,
    x_compute_workspace: str | Unset = UNSET,
) -> Response[Limits | Problem]:
    """The active workspace's soft and hard caps, and a change waiting for the next meter tick

     Needs the role of action `billing.read` (see the role table).

    Args:
        x_compute_api_version (GetV0BillingLimitsXComputeAPIVersion | Unset):
        x_compute_workspace (str | Unset): The workspace to act in (default: the token’s own, or
            the session’s personal one)

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Limits | Problem]
    """

    kwargs = _get_kwargs(
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
    x_compute_api_version: GetV0BillingLimitsXComputeAPIVersion | Unset = UNSET,
    x_compute_workspace: str | Unset = UNSET,
) -> Limits | Problem | None:
    """The active workspace's soft and hard caps, and a change waiting for the next meter tick

     Needs the role of action `billing.read` (see the role table).

    Args:
        x_compute_api_version (GetV0BillingLimitsXComputeAPIVersion | Unset):
        x_compute_workspace (str | Unset): The workspace to act in (default: the token’s own, or
            the session’s personal one)

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Limits | Problem
    """

    return sync_detailed(
        client=client,
        x_compute_api_version=x_compute_api_version,
        x_compute_workspace=x_compute_workspace,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    x_compute_api_version: GetV0BillingLimitsXComputeAPIVersion | Unset = UNSET,
    x_compute_workspace: str | Unset = UNSET,
) -> Response[Limits | Problem]:
    """The active workspace's soft and hard caps, and a change waiting for the next meter tick

     Needs the role of action `billing.read` (see the role table).

    Args:
        x_compute_api_version (GetV0BillingLimitsXComputeAPIVersion | Unset):
        x_compute_workspace (str | Unset): The workspace to act in (default: the token’s own, or
            the session’s personal one)

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Limits | Problem]
    """

    kwargs = _get_kwargs(
        x_compute_api_version=x_compute_api_version,
        x_compute_workspace=x_compute_workspace,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    x_compute_api_version: GetV0BillingLimitsXComputeAPIVersion | Unset = UNSET,
    x_compute_workspace: str | Unset = UNSET,
) -> Limits | Problem | None:
    """The active workspace's soft and hard caps, and a change waiting for the next meter tick

     Needs the role of action `billing.read` (see the role table).

    Args:
        x_compute_api_version (GetV0BillingLimitsXComputeAPIVersion | Unset):
        x_compute_workspace (str | Unset): The workspace to act in (default: the token’s own, or
            the session’s personal one)

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Limits | Problem
    """

    return (
        await asyncio_detailed(
            client=client,
            x_compute_api_version=x_compute_api_version,
            x_compute_workspace=x_compute_workspace,
        )
    ).parsed
