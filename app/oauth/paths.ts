/** Where the authorization server sends the browser for sign-in and consent (the web app serves it). */
export const INTERACTION_PATH = '/interaction';
