from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.member import Member
from ...models.post_v0_workspaces_id_members_body import PostV0WorkspacesIdMembersBody
from ...models.post_v0_workspaces_id_members_x_compute_api_version import (
    PostV0WorkspacesIdMembersXComputeAPIVersion,
)
from ...models.problem import Problem
from ...types import UNSET, Response, Unset


def _get_kwargs(
    id: str,
    *,
    body: PostV0WorkspacesIdMembersBody | Unset = UNSET,
    x_compute_api_version: PostV0WorkspacesIdMembersXComputeAPIVersion | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(x_compute_api_version, Unset):
        headers["X-Compute-API-Version"] = str(x_compute_api_version)

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v0/workspaces/{id}/members".format(
            id=quote(str(id), safe=""),
        ),
    }

    if not isinstance(body, Unset):
        _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Member | Problem | None:
    if response.status_code == 201:
        response_201 = Member.from_dict(response.json())

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
) -> Response[Member | Problem]:
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
    body: PostV0WorkspacesIdMembersBody | Unset = UNSET,
    x_compute_api_version: PostV0WorkspacesIdMembersXComputeAPIVersion | Unset = UNSET,
) -> Response[Member | Problem]:
    """Add a member by e-mail (admin; an admin or owner needs an owner). An address without an account gets
    one, usable at its first login. Already a member: 409 resource.conflict

     Needs the role of action `member.add` (see the role table).

    Args:
        id (str):
        x_compute_api_version (PostV0WorkspacesIdMembersXComputeAPIVersion | Unset):
        body (PostV0WorkspacesIdMembersBody | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Member | Problem]
    """

    kwargs = _get_kwargs(
        id=id,
        body=body,
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
    body: PostV0WorkspacesIdMembersBody | Unset = UNSET,
    x_compute_api_version: PostV0WorkspacesIdMembersXComputeAPIVersion | Unset = UNSET,
) -> Member | Problem | None:
    """Add a member by e-mail (admin; an admin or owner needs an owner). An address without an account gets
    one, usable at its first login. Already a member: 409 resource.conflict

     Needs the role of action `member.add` (see the role table).

    Args:
        id (str):
        x_compute_api_version (PostV0WorkspacesIdMembersXComputeAPIVersion | Unset):
        body (PostV0WorkspacesIdMembersBody | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Member | Problem
    """

    return sync_detailed(
        id=id,
        client=client,
        body=body,
        x_compute_api_version=x_compute_api_version,
    ).parsed


async def asyncio_detailed(
    id: str,
    *,
    client: AuthenticatedClient,
    body: PostV0WorkspacesIdMembersBody | Unset = UNSET,
    x_compute_api_version: PostV0WorkspacesIdMembersXComputeAPIVersion | Unset = UNSET,
) -> Response[Member | Problem]:
    """Add a member by e-mail (admin; an admin or owner needs an owner). An address without an account gets
    one, usable at its first login. Already a member: 409 resource.conflict

     Needs the role of action `member.add` (see the role table).

    Args:
        id (str):
        x_compute_api_version (PostV0WorkspacesIdMembersXComputeAPIVersion | Unset):
        body (PostV0WorkspacesIdMembersBody | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Member | Problem]
    """

    kwargs = _get_kwargs(
        id=id,
        body=body,
        x_compute_api_version=x_compute_api_version,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    id: str,
    *,
    client: AuthenticatedClient,
    body: PostV0WorkspacesIdMembersBody | Unset = UNSET,
    x_compute_api_version: PostV0WorkspacesIdMembersXComputeAPIVersion | Unset = UNSET,
) -> Member | Problem | None:
    """Add a member by e-mail (admin; an admin or owner needs an owner). An address without an account gets
    one, usable at its first login. Already a member: 409 resource.conflict

     Needs the role of action `member.add` (see the role table).

    Args:
        id (str):
        x_compute_api_version (PostV0WorkspacesIdMembersXComputeAPIVersion | Unset):
        body (PostV0WorkspacesIdMembersBody | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Member | Problem
    """

    return (
        await asyncio_detailed(
            id=id,
            client=client,
            body=body,
            x_compute_api_version=x_compute_api_version,
        )
    ).parsed
