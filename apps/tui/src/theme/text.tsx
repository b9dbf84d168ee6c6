// The screens' Text: Ink's, with every string it is given shown through `printableText`. A
// title, a model's turn, a question, a path or an error may carry terminal controls; Ink drops
// some of them silently and passes colour sequences through, so the text would either lie
// (something vanished) or act (it recolours or hides the screen). Here each control is shown
// (␛, <U+202E>); newlines and tabs stay, for multi-line text. Screens import Text from here.
import { printableText } from '@resume/core/spec';
import { Text as InkText, type TextProps } from 'ink';
import { Children } from 'react';

export function Text(props: TextProps) {
  const { children, ...rest } = props;
  return (
    <InkText {...rest}>
      {Children.map(children, (child) => (typeof child === 'string' ? printableText(child, 'lines') : child))}
    </InkText>
  );
}
