// Where the self-authorizing artifact URLs are served. One scheme for both surfaces: agents speak
// Surface A's protocol whichever surface a job came in on, so the URLs a poll hands out and the
// ones either surface presigns live under /api and answer in A's envelope.

export const ARTIFACT_UPLOAD_PREFIX = '/api/compute/artifacts/upload/';
export const ARTIFACT_DOWNLOAD_PREFIX = '/api/compute/artifacts/download/';

export const uploadPath = (jobId: string, id: string) => `${ARTIFACT_UPLOAD_PREFIX}${jobId}/${id}`;
export const downloadPath = (jobId: string, id: string) => `${ARTIFACT_DOWNLOAD_PREFIX}${jobId}/${id}`;
