// Text put into HTML or XML, in an element or a quoted attribute: the explorer pages, the API
// reference site and the SAML metadata all write it this way.
export const escapeMarkup = (text: string): string => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
