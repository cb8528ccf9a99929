from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.get_v0_session_x_compute_api_version import (
    GetV0SessionXComputeAPIVersion,
)
from ...models.problem import Problem
from ...models.session import Session
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    x_compute_api_version: GetV0SessionXComputeAPIVersion | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(x_compute_api_version, Unset):
        headers["X-Compute-API-Version"] = str(x_compute_api_version)

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v0/session",
    }

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Problem | Session | None:
    if response.status_code == 200:
        response_200 = Session.from_dict(response.json())

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
) -> Response[Problem | Session]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    x_compute_api_version: GetV0SessionXComputeAPIVersion | Unset = UNSET,
) -> Response[Problem | Session]:
    """The session this request carries (a session token, or the portal’s cookie): its user, its workspace
    and its expiry. An access token is 403

     Any authenticated caller.

    Args:
        x_compute_api_version (GetV0SessionXComputeAPIVersion | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | Session]
    """

    kwargs = _get_kwargs(
        x_compute_api_version=x_compute_api_version,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    x_compute_api_version: GetV0SessionXComputeAPIVersion | Unset = UNSET,
) -> Problem | Session | None:
    """The session this request carries (a session token, or the portal’s cookie): its user, its workspace
    and its expiry. An access token is 403

     Any authenticated caller.

    Args:
        x_compute_api_version (GetV0SessionXComputeAPIVersion | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | Session
    """

    return sync_detailed(
        client=client,
        x_compute_api_version=x_compute_api_version,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    x_compute_api_version: GetV0SessionXComputeAPIVersion | Unset = UNSET,
) -> Response[Problem | Session]:
    """The session this request carries (a session token, or the portal’s cookie): its user, its workspace
    and its expiry. An access token is 403

     Any authenticated caller.

    Args:
        x_compute_api_version (GetV0SessionXComputeAPIVersion | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | Session]
    """

    kwargs = _get_kwargs(
        x_compute_api_version=x_compute_api_version,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    x_compute_api_version: GetV0SessionXComputeAPIVersion | Unset = UNSET,
) -> Problem | Session | None:
    """The session this request carries (a session token, or the portal’s cookie): its user, its workspace
    and its expiry. An access token is 403

     Any authenticated caller.

    Args:
        x_compute_api_version (GetV0SessionXComputeAPIVersion | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | Session
    """

    return (
        await asyncio_detailed(
            client=client,
            x_compute_api_version=x_compute_api_version,
        )
    ).parsed
