from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.delete_v0_workspaces_id_members_user_id_x_compute_api_version import (
    DeleteV0WorkspacesIdMembersUserIdXComputeAPIVersion,
)
from ...models.problem import Problem
from ...models.removed_member import RemovedMember
from ...types import UNSET, Response, Unset


def _get_kwargs(
    id: str,
    user_id: str,
    *,
    x_compute_api_version: DeleteV0WorkspacesIdMembersUserIdXComputeAPIVersion
    | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(x_compute_api_version, Unset):
        headers["X-Compute-API-Version"] = str(x_compute_api_version)

    _kwargs: dict[str, Any] = {
        "method": "delete",
        "url": "/v0/workspaces/{id}/members/{user_id}".format(
            id=quote(str(id), safe=""),
            user_id=quote(str(user_id), safe=""),
        ),
    }

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Problem | RemovedMember | None:
    if response.status_code == 200:
        response_200 = RemovedMember.from_dict(response.json())

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
) -> Response[Problem | RemovedMember]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    id: str,
    user_id: str,
    *,
    client: AuthenticatedClient,
    x_compute_api_version: DeleteV0WorkspacesIdMembersUserIdXComputeAPIVersion
    | Unset = UNSET,
) -> Response[Problem | RemovedMember]:
    """Remove a member (admin; an admin or owner needs an owner; the last owner cannot go: 409). Their
    session stops acting in the workspace; their keys and tokens in it, and every agent registered
    through their credentials (deregistered as DELETE /v0/agents/{id} does: node key refused, running
    jobs requeued), are revoked on every instance before this answers. The answer lists what was
    revoked; agents registered with the workspace’s own keys stay

     Needs the role of action `member.remove` (see the role table).

    Args:
        id (str):
        user_id (str):
        x_compute_api_version (DeleteV0WorkspacesIdMembersUserIdXComputeAPIVersion | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | RemovedMember]
    """

    kwargs = _get_kwargs(
        id=id,
        user_id=user_id,
        x_compute_api_version=x_compute_api_version,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    id: str,
    user_id: str,
    *,
    client: AuthenticatedClient,
    x_compute_api_version: DeleteV0WorkspacesIdMembersUserIdXComputeAPIVersion
    | Unset = UNSET,
) -> Problem | RemovedMember | None:
    """Remove a member (admin; an admin or owner needs an owner; the last owner cannot go: 409). Their
    session stops acting in the workspace; their keys and tokens in it, and every agent registered
    through their credentials (deregistered as DELETE /v0/agents/{id} does: node key refused, running
    jobs requeued), are revoked on every instance before this answers. The answer lists what was
    revoked; agents registered with the workspace’s own keys stay

     Needs the role of action `member.remove` (see the role table).

    Args:
        id (str):
        user_id (str):
        x_compute_api_version (DeleteV0WorkspacesIdMembersUserIdXComputeAPIVersion | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | RemovedMember
    """

    return sync_detailed(
        id=id,
        user_id=user_id,
        client=client,
        x_compute_api_version=x_compute_api_version,
    ).parsed


async def asyncio_detailed(
    id: str,
    user_id: str,
    *,
    client: AuthenticatedClient,
    x_compute_api_version: DeleteV0WorkspacesIdMembersUserIdXComputeAPIVersion
    | Unset = UNSET,
) -> Response[Problem | RemovedMember]:
    """Remove a member (admin; an admin or owner needs an owner; the last owner cannot go: 409). Their
    session stops acting in the workspace; their keys and tokens in it, and every agent registered
    through their credentials (deregistered as DELETE /v0/agents/{id} does: node key refused, running
    jobs requeued), are revoked on every instance before this answers. The answer lists what was
    revoked; agents registered with the workspace’s own keys stay

     Needs the role of action `member.remove` (see the role table).

    Args:
        id (str):
        user_id (str):
        x_compute_api_version (DeleteV0WorkspacesIdMembersUserIdXComputeAPIVersion | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | RemovedMember]
    """

    kwargs = _get_kwargs(
        id=id,
        user_id=user_id,
        x_compute_api_version=x_compute_api_version,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    id: str,
    user_id: str,
    *,
    client: AuthenticatedClient,
    x_compute_api_version: DeleteV0WorkspacesIdMembersUserIdXComputeAPIVersion
    | Unset = UNSET,
) -> Problem | RemovedMember | None:
    """Remove a member (admin; an admin or owner needs an owner; the last owner cannot go: 409). Their
    session stops acting in the workspace; their keys and tokens in it, and every agent registered
    through their credentials (deregistered as DELETE /v0/agents/{id} does: node key refused, running
    jobs requeued), are revoked on every instance before this answers. The answer lists what was
    revoked; agents registered with the workspace’s own keys stay

     Needs the role of action `member.remove` (see the role table).

    Args:
        id (str):
        user_id (str):
        x_compute_api_version (DeleteV0WorkspacesIdMembersUserIdXComputeAPIVersion | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | RemovedMember
    """

    return (
        await asyncio_detailed(
            id=id,
            user_id=user_id,
            client=client,
            x_compute_api_version=x_compute_api_version,
        )
    ).parsed
