from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.member import Member
from ...models.patch_v0_workspaces_id_members_user_id_body import (
    PatchV0WorkspacesIdMembersUserIdBody,
)
from ...models.patch_v0_workspaces_id_members_user_id_x_compute_api_version import (
    PatchV0WorkspacesIdMembersUserIdXComputeAPIVersion,
)
from ...models.problem import Problem
from ...types import UNSET, Response, Unset


def _get_kwargs(
    id: str,
    user_id: str,
    *,
    body: PatchV0WorkspacesIdMembersUserIdBody | Unset = UNSET,
    x_compute_api_version: PatchV0WorkspacesIdMembersUserIdXComputeAPIVersion
    | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(x_compute_api_version, Unset):
        headers["X-Compute-API-Version"] = str(x_compute_api_version)

    _kwargs: dict[str, Any] = {
        "method": "patch",
        "url": "/v0/workspaces/{id}/members/{user_id}".format(
            id=quote(str(id), safe=""),
            user_id=quote(str(user_id), safe=""),
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
    if response.status_code == 200:
        response_200 = Member.from_dict(response.json())

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
) -> Response[Member | Problem]:
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
    body: PatchV0WorkspacesIdMembersUserIdBody | Unset = UNSET,
    x_compute_api_version: PatchV0WorkspacesIdMembersUserIdXComputeAPIVersion
    | Unset = UNSET,
) -> Response[Member | Problem]:
    """Change a member's role (admin; to or from admin or owner needs an owner). The last owner stays an
    owner: 409

     Needs the role of action `member.update` (see the role table).

    Args:
        id (str):
        user_id (str):
        x_compute_api_version (PatchV0WorkspacesIdMembersUserIdXComputeAPIVersion | Unset):
        body (PatchV0WorkspacesIdMembersUserIdBody | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Member | Problem]
    """

    kwargs = _get_kwargs(
        id=id,
        user_id=user_id,
        body=body,
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
    body: PatchV0WorkspacesIdMembersUserIdBody | Unset = UNSET,
    x_compute_api_version: PatchV0WorkspacesIdMembersUserIdXComputeAPIVersion
    | Unset = UNSET,
) -> Member | Problem | None:
    """Change a member's role (admin; to or from admin or owner needs an owner). The last owner stays an
    owner: 409

     Needs the role of action `member.update` (see the role table).

    Args:
        id (str):
        user_id (str):
        x_compute_api_version (PatchV0WorkspacesIdMembersUserIdXComputeAPIVersion | Unset):
        body (PatchV0WorkspacesIdMembersUserIdBody | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Member | Problem
    """

    return sync_detailed(
        id=id,
        user_id=user_id,
        client=client,
        body=body,
        x_compute_api_version=x_compute_api_version,
    ).parsed


async def asyncio_detailed(
    id: str,
    user_id: str,
    *,
    client: AuthenticatedClient,
    body: PatchV0WorkspacesIdMembersUserIdBody | Unset = UNSET,
    x_compute_api_version: PatchV0WorkspacesIdMembersUserIdXComputeAPIVersion
    | Unset = UNSET,
) -> Response[Member | Problem]:
    """Change a member's role (admin; to or from admin or owner needs an owner). The last owner stays an
    owner: 409

     Needs the role of action `member.update` (see the role table).

    Args:
        id (str):
        user_id (str):
        x_compute_api_version (PatchV0WorkspacesIdMembersUserIdXComputeAPIVersion | Unset):
        body (PatchV0WorkspacesIdMembersUserIdBody | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Member | Problem]
    """

    kwargs = _get_kwargs(
        id=id,
        user_id=user_id,
        body=body,
        x_compute_api_version=x_compute_api_version,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    id: str,
    user_id: str,
    *,
    client: AuthenticatedClient,
    body: PatchV0WorkspacesIdMembersUserIdBody | Unset = UNSET,
    x_compute_api_version: PatchV0WorkspacesIdMembersUserIdXComputeAPIVersion
    | Unset = UNSET,
) -> Member | Problem | None:
    """Change a member's role (admin; to or from admin or owner needs an owner). The last owner stays an
    owner: 409

     Needs the role of action `member.update` (see the role table).

    Args:
        id (str):
        user_id (str):
        x_compute_api_version (PatchV0WorkspacesIdMembersUserIdXComputeAPIVersion | Unset):
        body (PatchV0WorkspacesIdMembersUserIdBody | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Member | Problem
    """

    return (
        await asyncio_detailed(
            id=id,
            user_id=user_id,
            client=client,
            body=body,
            x_compute_api_version=x_compute_api_version,
        )
    ).parsed
