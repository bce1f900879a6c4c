/** The sign-out button: a POST form carrying the CSRF token (a link cannot sign anyone out). */
export function SignOutForm(props: { csrfToken: string; buttonClass?: string }) {
  return (
    <form method="post" action="/dashboard/sign-out">
      <input type="hidden" name="_csrf" value={props.csrfToken} />
      <button type="submit" class={props.buttonClass}>Sign out</button>
    </form>
  );
}
