// `npm start` without configured keys makes a development key and keeps it in its data directory under
// this name; the CLI reads it from there. The server writes the file and the CLI reads it, so the name is
// the one fact they share, and it lives below both.
export const DEV_API_KEY_FILE = 'dev-api-key';
