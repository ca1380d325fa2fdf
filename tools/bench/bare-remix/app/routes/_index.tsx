/** The tiny document route: a server render of one line of text, no loader. */
export default function Index() {
  return <p>Hello from a bare Remix app.</p>
}
