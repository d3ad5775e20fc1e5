/** A connection URL fit for a message: the password, if any, is never shown. */
export const redactUrl = (value: string): string => {
  try {
    const url = new URL(value);
    if (url.password !== '') {
      url.password = '***';
    }
    return url.toString();
  } catch {
    return '(unparseable URL)';
  }
};
