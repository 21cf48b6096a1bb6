// The status page's only script: every RefreshMs, fetch the page again and swap in its #status
// element (one renderer, on the server). Skipped while text in it is selected, so it can be copied.

export const RefreshMs = 1500;

export const pageScript = `
(() => {
  const connection = document.getElementById("connection");
  const refresh = async () => {
    try {
      const response = await fetch(location.pathname, { cache: "no-store" });
      if (!response.ok) throw new Error(String(response.status));
      const fresh = new DOMParser().parseFromString(await response.text(), "text/html");
      const next = fresh.getElementById("status");
      const current = document.getElementById("status");
      const selecting = String(window.getSelection() || "") !== "";
      if (next && current && !selecting) {
        current.replaceWith(next);
        document.title = fresh.title;
      }
      connection.hidden = true;
    } catch {
      connection.hidden = false;
    }
    setTimeout(refresh, ${RefreshMs});
  };
  setTimeout(refresh, ${RefreshMs});
})();
`;
