from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_envelope import ErrorEnvelope
from ...models.put_api_compute_artifacts_upload_job_id_id_response_200 import (
    PutApiComputeArtifactsUploadJobIdIdResponse200,
)
from ...types import UNSET, File, Response, Unset


def _get_kwargs(
    job_id: str,
    id: str,
    *,
    body: File | Unset = UNSET,
    expires: str,
    sig: str,
    lease: str | Unset = UNSET,
    name: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    params: dict[str, Any] = {}

    params["expires"] = expires

    params["sig"] = sig

    params["lease"] = lease

    params["name"] = name

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "put",
        "url": "/api/compute/artifacts/upload/{job_id}/{id}".format(
            job_id=quote(str(job_id), safe=""),
            id=quote(str(id), safe=""),
        ),
        "params": params,
    }

    if not isinstance(body, Unset):
        _kwargs["content"] = body.payload
    headers["Content-Type"] = "application/octet-stream"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorEnvelope | PutApiComputeArtifactsUploadJobIdIdResponse200 | None:
    if response.status_code == 200:
        response_200 = PutApiComputeArtifactsUploadJobIdIdResponse200.from_dict(
            response.json()
        )

        return response_200

    if response.status_code == 403:
        response_403 = ErrorEnvelope.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = ErrorEnvelope.from_dict(response.json())

        return response_404

    if response.status_code == 409:
        response_409 = ErrorEnvelope.from_dict(response.json())

        return response_409

    if response.status_code == 413:
        response_413 = ErrorEnvelope.from_dict(response.json())

        return response_413

    if response.status_code == 429:
        response_429 = ErrorEnvelope.from_dict(response.json())

        return response_429

    if response.status_code == 503:
        response_503 = ErrorEnvelope.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[ErrorEnvelope | PutApiComputeArtifactsUploadJobIdIdResponse200]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    job_id: str,
    id: str,
    *,
    client: AuthenticatedClient | Client,
    body: File | Unset = UNSET,
    expires: str,
    sig: str,
    lease: str | Unset = UNSET,
    name: str | Unset = UNSET,
) -> Response[ErrorEnvelope | PutApiComputeArtifactsUploadJobIdIdResponse200]:
    """Upload an artifact through a signed URL (no header needed): from a poll (agent; `{id}` filled by the
    agent, lease checked) or presign-upload. The body is streamed to object storage; sha256 is computed
    on the way. Uploading the same id again replaces it.

    Args:
        job_id (str):
        id (str): 1-128 of A-Z a-z 0-9 . _ -
        expires (str): Expiry, epoch seconds (covered by sig)
        sig (str): base64url HMAC-SHA256 over method, path, expires and lease
        lease (str | Unset): An agent's lease (upload templates only; covered by sig)
        name (str | Unset): Display name (e.g. the relative path); defaults to the id
        body (File | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | PutApiComputeArtifactsUploadJobIdIdResponse200]
    """

    kwargs = _get_kwargs(
        job_id=job_id,
        id=id,
        body=body,
        expires=expires,
        sig=sig,
        lease=lease,
        name=name,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    job_id: str,
    id: str,
    *,
    client: AuthenticatedClient | Client,
    body: File | Unset = UNSET,
    expires: str,
    sig: str,
    lease: str | Unset = UNSET,
    name: str | Unset = UNSET,
) -> ErrorEnvelope | PutApiComputeArtifactsUploadJobIdIdResponse200 | None:
    """Upload an artifact through a signed URL (no header needed): from a poll (agent; `{id}` filled by the
    agent, lease checked) or presign-upload. The body is streamed to object storage; sha256 is computed
    on the way. Uploading the same id again replaces it.

    Args:
        job_id (str):
        id (str): 1-128 of A-Z a-z 0-9 . _ -
        expires (str): Expiry, epoch seconds (covered by sig)
        sig (str): base64url HMAC-SHA256 over method, path, expires and lease
        lease (str | Unset): An agent's lease (upload templates only; covered by sig)
        name (str | Unset): Display name (e.g. the relative path); defaults to the id
        body (File | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | PutApiComputeArtifactsUploadJobIdIdResponse200
    """

    return sync_detailed(
        job_id=job_id,
        id=id,
        client=client,
        body=body,
        expires=expires,
        sig=sig,
        lease=lease,
        name=name,
    ).parsed


async def asyncio_detailed(
    job_id: str,
    id: str,
    *,
    client: AuthenticatedClient | Client,
    body: File | Unset = UNSET,
    expires: str,
    sig: str,
    lease: str | Unset = UNSET,
    name: str | Unset = UNSET,
) -> Response[ErrorEnvelope | PutApiComputeArtifactsUploadJobIdIdResponse200]:
    """Upload an artifact through a signed URL (no header needed): from a poll (agent; `{id}` filled by the
    agent, lease checked) or presign-upload. The body is streamed to object storage; sha256 is computed
    on the way. Uploading the same id again replaces it.

    Args:
        job_id (str):
        id (str): 1-128 of A-Z a-z 0-9 . _ -
        expires (str): Expiry, epoch seconds (covered by sig)
        sig (str): base64url HMAC-SHA256 over method, path, expires and lease
        lease (str | Unset): An agent's lease (upload templates only; covered by sig)
        name (str | Unset): Display name (e.g. the relative path); defaults to the id
        body (File | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | PutApiComputeArtifactsUploadJobIdIdResponse200]
    """

    kwargs = _get_kwargs(
        job_id=job_id,
        id=id,
        body=body,
        expires=expires,
        sig=sig,
        lease=lease,
        name=name,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    job_id: str,
    id: str,
    *,
    client: AuthenticatedClient | Client,
    body: File | Unset = UNSET,
    expires: str,
    sig: str,
    lease: str | Unset = UNSET,
    name: str | Unset = UNSET,
) -> ErrorEnvelope | PutApiComputeArtifactsUploadJobIdIdResponse200 | None:
    """Upload an artifact through a signed URL (no header needed): from a poll (agent; `{id}` filled by the
    agent, lease checked) or presign-upload. The body is streamed to object storage; sha256 is computed
    on the way. Uploading the same id again replaces it.

    Args:
        job_id (str):
        id (str): 1-128 of A-Z a-z 0-9 . _ -
        expires (str): Expiry, epoch seconds (covered by sig)
        sig (str): base64url HMAC-SHA256 over method, path, expires and lease
        lease (str | Unset): An agent's lease (upload templates only; covered by sig)
        name (str | Unset): Display name (e.g. the relative path); defaults to the id
        body (File | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | PutApiComputeArtifactsUploadJobIdIdResponse200
    """

    return (
        await asyncio_detailed(
            job_id=job_id,
            id=id,
            client=client,
            body=body,
            expires=expires,
            sig=sig,
            lease=lease,
            name=name,
        )
    ).parsed
