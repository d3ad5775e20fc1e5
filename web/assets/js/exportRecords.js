// Downloads come from the service itself: the same run (preset, profile, seed, size) asked for again in
// the format wanted, so the file holds exactly the bytes the API serves, however large the run.
import { ApiError } from './api.js';

/** Saves bytes under a file name through a temporary link. */
export const downloadBlob = (filename, blob) => {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = filename;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  // Revoked after the click has been handled, so the download has its bytes.
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
};

export const downloadText = (filename, type, text) => downloadBlob(filename, new Blob([text], { type }));

/**
 * POST /v1/simulations with the run's own inputs and `Accept` set to the format, saved as the server sent
 * it (CSV or NDJSON). It is a run of its own: it counts against the plan like any other.
 */
export const downloadRun = async (run, accept, filename) => {
  let response;
  try {
    response = await fetch('/v1/simulations', {
      method: 'POST',
      credentials: 'same-origin',
      headers: { Accept: accept, 'Content-Type': 'application/json' },
      body: JSON.stringify(run),
    });
  } catch {
    throw new ApiError(0, null, null);
  }
  if (!response.ok) {
    let body = null;
    try {
      body = await response.json();
    } catch {
      body = null;
    }
    throw new ApiError(response.status, body, response.headers);
  }
  downloadBlob(filename, await response.blob());
};
