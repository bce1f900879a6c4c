// Starts Swagger UI on the /docs page over /openapi.json. It is a file of its own, served by the
// service, because the page's Content-Security-Policy allows no inline script.
globalThis.ui = globalThis.SwaggerUIBundle({
  url: "/openapi.json",
  dom_id: "#swagger-ui",
  deepLinking: true,
  // No badge from the public validator service: the page contacts no other host.
  validatorUrl: null,
});
