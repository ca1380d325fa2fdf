import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { SITE_URL, startTestStack, type TestStack } from './test-support'

/**
 * Auth mails are rendered from templates with the auth server's variables, and its redirect
 * rule decides what `{{ .RedirectTo }}` is: so a template or an allow-list that would break in
 * production breaks here too.
 */
const APP = 'http://app.example'

describe("the project's templates and the allow-list", () => {
  let stack: TestStack
  beforeAll(async () => {
    // a hosted project's situation: the app runs on an origin other than the Site URL
    stack = await startTestStack({ redirectAllowList: [`${APP}/auth/callback`, `${APP}/ok/**`] })
  })
  afterAll(() => stack.close())

  const magicLink = async (email: string, redirectTo: string) => {
    await stack.createUser(email)
    const sent = await stack.client().auth.signInWithOtp({
      email,
      options: { emailRedirectTo: redirectTo, shouldCreateUser: false },
    })
    expect(sent.error).toBeNull()
    return (await stack.emulator.inbox.latestFor(email))!
  }

  it('an exact entry does not match the redirect once a query is added: RedirectTo is the bare Site URL', async () => {
    const mail = await magicLink('exact@example.com', `${APP}/auth/callback?next=%2Fbilling`)
    const link = new URL(mail.link!)
    expect(`${link.origin}${link.pathname}`).toBe(`${SITE_URL}/auth/callback`)
    expect(link.searchParams.get('type')).toBe('magiclink')
    expect(link.searchParams.get('next')).toBe(SITE_URL)
    expect(new URL(mail.verifyUrl!).searchParams.get('redirect_to')).toBe(SITE_URL)
    // and the link still verifies
    const { data, error } = await stack.client().auth.verifyOtp({
      type: 'magiclink',
      token_hash: link.searchParams.get('token_hash')!,
    })
    expect(error).toBeNull()
    expect(data.session?.user.email).toBe('exact@example.com')
  })

  it('a `/**` entry keeps the redirect, query and all, which the mail passes on as next', async () => {
    const redirect = `${APP}/ok/auth/callback?next=%2Fa%2Fb.c`
    const mail = await magicLink('glob@example.com', redirect)
    expect(new URL(mail.link!).searchParams.get('next')).toBe(redirect)
  })

  it('renders the project template: HTML-escaped address, the code, the subject from config.toml', async () => {
    const mail = await magicLink('ada+pro@example.com', SITE_URL)
    expect(mail.subject).toBe('Your sign-in link')
    expect(mail.html).toContain('ada&#43;pro@example.com')
    expect(mail.html).toContain(mail.otp!)
    expect(mail.text).toContain(mail.otp!)
    expect(mail.text).toContain('Sign in to Subscribely')
  })

  it("gives the template the user's metadata as it is when the mail is sent (.Data)", async () => {
    const email = 'owner@example.com'
    await stack.createUser(email)
    const { supabase } = await stack.signIn(email)
    await supabase.auth.updateUser({ data: { code_for: 'delete-account' } })
    await stack.client().auth.signInWithOtp({ email, options: { shouldCreateUser: false } })
    const mail = (await stack.emulator.inbox.latestFor(email))!
    expect(mail.subject).toBe('Your code to delete your account')
    expect(mail.text).toContain(`Your code to delete the Subscribely account ${email}: ${mail.otp}`)
    expect(mail.link).toBeNull()
  })
})
