from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.post_v0_webhooks_body import PostV0WebhooksBody
from ...models.post_v0_webhooks_response_201 import PostV0WebhooksResponse201
from ...models.post_v0_webhooks_x_compute_api_version import (
    PostV0WebhooksXComputeAPIVersion,
)
from ...models.problem import Problem
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    body: PostV0WebhooksBody | Unset = UNSET,
    x_compute_api_version: PostV0WebhooksXComputeAPIVersion | Unset = UNSET,
    x_compute_workspace: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(x_compute_api_version, Unset):
        headers["X-Compute-API-Version"] = str(x_compute_api_version)

    if not isinstance(x_compute_workspace, Unset):
        headers["X-Compute-Workspace"] = x_compute_workspace

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v0/webhooks",
    }

    if not isinstance(body, Unset):
        _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> PostV0WebhooksResponse201 | Problem | None:
    if response.status_code == 201:
        response_201 = PostV0WebhooksResponse201.from_dict(response.json())

        return response_201

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

    if response.status_code == 409:
        response_409 = Problem.from_dict(response.json())

        return response_409

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
) -> Response[PostV0WebhooksResponse201 | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: PostV0WebhooksBody | Unset = UNSET,
    x_compute_api_version: PostV0WebhooksXComputeAPIVersion | Unset = UNSET,
    x_compute_workspace: str | Unset = UNSET,
) -> Response[PostV0WebhooksResponse201 | Problem]:
    """Register an endpoint (admin). `events` defaults to all three kinds. The URL must be http(s) and may
    not resolve to a private, loopback, link-local, CGNAT, multicast or metadata address (400
    `request.invalid`); the operator may allow private targets (on under `npm run dev`), metadata
    addresses never. Events are signed by the Standard Webhooks scheme with `secret`, shown only here

     Needs the role of action `webhook.create` (see the role table).

    Args:
        x_compute_api_version (PostV0WebhooksXComputeAPIVersion | Unset):
        x_compute_workspace (str | Unset): The workspace to act in (default: the token’s own, or
            the session’s personal one)
        body (PostV0WebhooksBody | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[PostV0WebhooksResponse201 | Problem]
    """

    kwargs = _get_kwargs(
        body=body,
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
    body: PostV0WebhooksBody | Unset = UNSET,
    x_compute_api_version: PostV0WebhooksXComputeAPIVersion | Unset = UNSET,
    x_compute_workspace: str | Unset = UNSET,
) -> PostV0WebhooksResponse201 | Problem | None:
    """Register an endpoint (admin). `events` defaults to all three kinds. The URL must be http(s) and may
    not resolve to a private, loopback, link-local, CGNAT, multicast or metadata address (400
    `request.invalid`); the operator may allow private targets (on under `npm run dev`), metadata
    addresses never. Events are signed by the Standard Webhooks scheme with `secret`, shown only here

     Needs the role of action `webhook.create` (see the role table).

    Args:
        x_compute_api_version (PostV0WebhooksXComputeAPIVersion | Unset):
        x_compute_workspace (str | Unset): The workspace to act in (default: the token’s own, or
            the session’s personal one)
        body (PostV0WebhooksBody | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        PostV0WebhooksResponse201 | Problem
    """

    return sync_detailed(
        client=client,
        body=body,
        x_compute_api_version=x_compute_api_version,
        x_compute_workspace=x_compute_workspace,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: PostV0WebhooksBody | Unset = UNSET,
    x_compute_api_version: PostV0WebhooksXComputeAPIVersion | Unset = UNSET,
    x_compute_workspace: str | Unset = UNSET,
) -> Response[PostV0WebhooksResponse201 | Problem]:
    """Register an endpoint (admin). `events` defaults to all three kinds. The URL must be http(s) and may
    not resolve to a private, loopback, link-local, CGNAT, multicast or metadata address (400
    `request.invalid`); the operator may allow private targets (on under `npm run dev`), metadata
    addresses never. Events are signed by the Standard Webhooks scheme with `secret`, shown only here

     Needs the role of action `webhook.create` (see the role table).

    Args:
        x_compute_api_version (PostV0WebhooksXComputeAPIVersion | Unset):
        x_compute_workspace (str | Unset): The workspace to act in (default: the token’s own, or
            the session’s personal one)
        body (PostV0WebhooksBody | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[PostV0WebhooksResponse201 | Problem]
    """

    kwargs = _get_kwargs(
        body=body,
        x_compute_api_version=x_compute_api_version,
        x_compute_workspace=x_compute_workspace,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    body: PostV0WebhooksBody | Unset = UNSET,
    x_compute_api_version: PostV0WebhooksXComputeAPIVersion | Unset = UNSET,
    x_compute_workspace: str | Unset = UNSET,
) -> PostV0WebhooksResponse201 | Problem | None:
    """Register an endpoint (admin). `events` defaults to all three kinds. The URL must be http(s) and may
    not resolve to a private, loopback, link-local, CGNAT, multicast or metadata address (400
    `request.invalid`); the operator may allow private targets (on under `npm run dev`), metadata
    addresses never. Events are signed by the Standard Webhooks scheme with `secret`, shown only here

     Needs the role of action `webhook.create` (see the role table).

    Args:
        x_compute_api_version (PostV0WebhooksXComputeAPIVersion | Unset):
        x_compute_workspace (str | Unset): The workspace to act in (default: the token’s own, or
            the session’s personal one)
        body (PostV0WebhooksBody | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        PostV0WebhooksResponse201 | Problem
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
            x_compute_api_version=x_compute_api_version,
            x_compute_workspace=x_compute_workspace,
        )
    ).parsed
