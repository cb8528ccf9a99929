from http import HTTPStatus
from io import BytesIO
from typing import Any, cast
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_envelope import ErrorEnvelope
from ...types import UNSET, File, Response


def _get_kwargs(
    job_id: str,
    id: str,
    *,
    expires: str,
    sig: str,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["expires"] = expires

    params["sig"] = sig

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/compute/artifacts/download/{job_id}/{id}".format(
            job_id=quote(str(job_id), safe=""),
            id=quote(str(id), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Any | ErrorEnvelope | File | None:
    if response.status_code == 200:
        response_200 = File(payload=BytesIO(response.content))

        return response_200

    if response.status_code == 206:
        response_206 = cast(Any, None)
        return response_206

    if response.status_code == 304:
        response_304 = cast(Any, None)
        return response_304

    if response.status_code == 403:
        response_403 = ErrorEnvelope.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = ErrorEnvelope.from_dict(response.json())

        return response_404

    if response.status_code == 416:
        response_416 = ErrorEnvelope.from_dict(response.json())

        return response_416

    if response.status_code == 503:
        response_503 = ErrorEnvelope.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[Any | ErrorEnvelope | File]:
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
    expires: str,
    sig: str,
) -> Response[Any | ErrorEnvelope | File]:
    """Download an artifact through a signed URL (no header needed). Streams with Content-Length, ETag (the
    sha256) and Range (one range; 206).

    Args:
        job_id (str):
        id (str): 1-128 of A-Z a-z 0-9 . _ -
        expires (str): Expiry, epoch seconds (covered by sig)
        sig (str): base64url HMAC-SHA256 over method, path, expires and lease

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | ErrorEnvelope | File]
    """

    kwargs = _get_kwargs(
        job_id=job_id,
        id=id,
        expires=expires,
        sig=sig,
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
    expires: str,
    sig: str,
) -> Any | ErrorEnvelope | File | None:
    """Download an artifact through a signed URL (no header needed). Streams with Content-Length, ETag (the
    sha256) and Range (one range; 206).

    Args:
        job_id (str):
        id (str): 1-128 of A-Z a-z 0-9 . _ -
        expires (str): Expiry, epoch seconds (covered by sig)
        sig (str): base64url HMAC-SHA256 over method, path, expires and lease

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | ErrorEnvelope | File
    """

    return sync_detailed(
        job_id=job_id,
        id=id,
        client=client,
        expires=expires,
        sig=sig,
    ).parsed


async def asyncio_detailed(
    job_id: str,
    id: str,
    *,
    client: AuthenticatedClient | Client,
    expires: str,
    sig: str,
) -> Response[Any | ErrorEnvelope | File]:
    """Download an artifact through a signed URL (no header needed). Streams with Content-Length, ETag (the
    sha256) and Range (one range; 206).

    Args:
        job_id (str):
        id (str): 1-128 of A-Z a-z 0-9 . _ -
        expires (str): Expiry, epoch seconds (covered by sig)
        sig (str): base64url HMAC-SHA256 over method, path, expires and lease

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | ErrorEnvelope | File]
    """

    kwargs = _get_kwargs(
        job_id=job_id,
        id=id,
        expires=expires,
        sig=sig,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    job_id: str,
    id: str,
    *,
    client: AuthenticatedClient | Client,
    expires: str,
    sig: str,
) -> Any | ErrorEnvelope | File | None:
    """Download an artifact through a signed URL (no header needed). Streams with Content-Length, ETag (the
    sha256) and Range (one range; 206).

    Args:
        job_id (str):
        id (str): 1-128 of A-Z a-z 0-9 . _ -
        expires (str): Expiry, epoch seconds (covered by sig)
        sig (str): base64url HMAC-SHA256 over method, path, expires and lease

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | ErrorEnvelope | File
    """

    return (
        await asyncio_detailed(
            job_id=job_id,
            id=id,
            client=client,
            expires=expires,
            sig=sig,
        )
    ).parsed
