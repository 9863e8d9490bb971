// Plural forms: the server renders a text with a number in each plural category of the
// language (games/templatetags/game_ui.py), and the number shown picks one.

/** The form of `forms` ({one, few, many, other}) for the number `n` in `language`. */
export function pluralForm(forms, n, language) {
  const category = new Intl.PluralRules(language).select(n);
  return forms[category] ?? forms.other;
}
