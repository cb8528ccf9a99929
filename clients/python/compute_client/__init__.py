"""A client of the compute job service's /v0 API for programs that submit jobs.

``compute_api`` is generated from the OpenAPI document (every route and record, typed);
this layer adds what generators do badly: a submit that is safe to repeat, following a job's
log as it is written (resuming after a cut, each line once), and waiting for a job to end.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import httpx

from compute_api import AuthenticatedClient
from compute_api.api.jobs import get_v0_jobs_id, post_v0_jobs
from compute_api.models.job import Job
from compute_api.models.job_manifest import JobManifest
from compute_api.models.submitted_job import SubmittedJob

__all__ = [
    "TERMINAL_STATES",
    "ComputeApiError",
    "ComputeClient",
    "Job",
    "LogLine",
    "SubmittedJob",
]

TERMINAL_STATES = frozenset({"SUCCEEDED", "FAILED", "TIMED_OUT", "CANCELLED"})


class ComputeApiError(Exception):
    """An answer that is not 2xx, with the API's problem document."""

    def __init__(self, status: int, problem: Mapping[str, Any] | None):
        self.status = status
        self.problem = dict(problem or {})
        detail = (
            self.problem.get("detail") or self.problem.get("title") or "request failed"
        )
        super().__init__(f"{status} {self.problem.get('code', '')}: {detail}".strip())


@dataclass(frozen=True)
class LogLine:
    seq: int
    stream: str
    line: str
    ts: str


def _problem(response: httpx.Response) -> Mapping[str, Any] | None:
    try:
        return response.json()
    except ValueError:
        return None


class ComputeClient:
    """``ComputeClient(base_url, token)``: ``token`` is a session or access token (``cpat_…``)."""

    def __init__(
        self,
        base_url: str,
        token: str,
        workspace_id: str | None = None,
        timeout: float = 30.0,
    ):
        headers = {"X-Compute-Workspace": workspace_id} if workspace_id else {}
        self.api = AuthenticatedClient(
            base_url=base_url,
            token=token,
            headers=headers,
            timeout=httpx.Timeout(timeout),
            raise_on_unexpected_status=False,
        )

    def submit(
        self, manifest: Mapping[str, Any], idempotency_key: str | None = None
    ) -> Job:
        """Submits a job. The same Idempotency-Key answers the same job, so a repeat after a lost
        answer or an outage (done here, up to 5 times) never makes a second one."""
        key = idempotency_key or str(uuid.uuid4())
        body = JobManifest.from_dict(manifest)
        for attempt in range(5):
            try:
                response = post_v0_jobs.sync_detailed(
                    client=self.api, body=body, idempotency_key=key
                )
            except httpx.TransportError:
                if attempt == 4:
                    raise
            else:
                if isinstance(response.parsed, SubmittedJob):
                    return response.parsed
                status = int(response.status_code)
                # A refusal is final; an outage, or the key held by a submit still under way, is not.
                if (status < 500 and status != 409) or attempt == 4:
                    raise ComputeApiError(
                        status, json.loads(response.content or b"null")
                    )
            time.sleep(0.25 * 2**attempt)
        raise AssertionError("unreachable")

    def get_job(self, job_id: str) -> Job:
        response = get_v0_jobs_id.sync_detailed(job_id, client=self.api)
        if isinstance(response.parsed, Job):
            return response.parsed
        raise ComputeApiError(
            int(response.status_code), json.loads(response.content or b"null")
        )

    def follow_logs(
        self, job_id: str, on_line: Callable[[LogLine], None]
    ) -> dict[str, Any]:
        """Calls ``on_line`` with each line of the job's log as it is written, resuming after the last
        line seen when the stream is cut; returns the job's end (``{"state", "exitCode"}``)."""
        last_id: str | None = None
        failures = 0
        http = self.api.get_httpx_client()
        while True:
            headers = {
                "Accept": "text/event-stream",
                **({"Last-Event-ID": last_id} if last_id else {}),
            }
            try:
                with http.stream(
                    "GET",
                    f"/v0/jobs/{job_id}/logs",
                    params={"follow": "true"},
                    headers=headers,
                    timeout=httpx.Timeout(30.0, read=None),
                ) as response:
                    if response.status_code >= 400:
                        response.read()
                        if response.status_code < 500:
                            raise ComputeApiError(
                                response.status_code, _problem(response)
                            )
                    else:
                        failures = 0
                        event: dict[str, str] = {}
                        for raw in response.iter_lines():
                            if raw == "":
                                if event.get("id"):
                                    last_id = event["id"]
                                kind = event.get("event")
                                if kind == "log":
                                    data = json.loads(event["data"])
                                    on_line(
                                        LogLine(
                                            data["seq"],
                                            data["stream"],
                                            data["line"],
                                            data["ts"],
                                        )
                                    )
                                elif kind == "end":
                                    return json.loads(event["data"])
                                event = {}
                            elif not raw.startswith(":"):
                                field, _, value = raw.partition(":")
                                value = value.removeprefix(" ")
                                event[field] = (
                                    f"{event[field]}\n{value}"
                                    if field == "data" and "data" in event
                                    else value
                                )
            except httpx.TransportError:
                pass
            time.sleep(min(0.25 * 2**failures, 5.0))
            failures += 1

    def wait_for_terminal(self, job_id: str, timeout: float = 3600.0) -> Job:
        """Reads the job with a growing backoff (0.25 s doubling to 5 s) until it is terminal."""
        deadline = time.monotonic() + timeout
        delay = 0.25
        while True:
            job = self.get_job(job_id)
            if str(job.state) in TERMINAL_STATES:
                return job
            if time.monotonic() + delay > deadline:
                raise TimeoutError(f"job {job_id} is still {job.state}")
            time.sleep(delay)
            delay = min(delay * 2, 5.0)
